// Size limits of what the management API stores (projects, actions, cohorts, flags, keys, settings),
// checked in one place for every management route (management.ts) rather than route by route: a name
// is a name, not 19 MB, and one object cannot make a list of them too large to read.
import { wrenError } from '../errors'
import { isRecord } from '../json'

/** Characters of short texts: names, flag keys, key labels (PostHog's names allow 400). */
export const MAX_NAME_CHARS = 400
/** Characters of a description. */
export const MAX_DESCRIPTION_CHARS = 10_000
/** Bytes of any other field as JSON: filters, steps, groups, tags, scopes, each setting, person properties. */
export const MAX_FIELD_BYTES = 128 * 1024

const NAMES = new Set(['name', 'key', 'label'])
/** Bulk data with its own limit (the upload's body limit): a static cohort's members. */
const BULK = new Set(['distinct_ids', 'csv'])

/** Throws a 400 naming the first top-level field of a management request body that is too large. */
export function checkFieldSizes(body: unknown): void {
  if (!isRecord(body)) return
  for (const [field, value] of Object.entries(body)) {
    if (BULK.has(field) || value === null || value === undefined) continue
    if (typeof value === 'string' && NAMES.has(field)) {
      if (value.length > MAX_NAME_CHARS) throw tooLong(field, `no more than ${MAX_NAME_CHARS} characters`)
    } else if (typeof value === 'string' && field === 'description') {
      if (value.length > MAX_DESCRIPTION_CHARS)
        throw tooLong(field, `no more than ${MAX_DESCRIPTION_CHARS.toLocaleString('en')} characters`)
    } else if (Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value)) > MAX_FIELD_BYTES) {
      throw tooLong(field, `no more than ${MAX_FIELD_BYTES / 1024} KiB as JSON`)
    }
  }
}

function tooLong(field: string, limit: string) {
  return wrenError('max_length', `Ensure ${field} has ${limit}.`, field)
}
