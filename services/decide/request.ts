// A decide / flags request body (reference §4.1), with PostHog's field aliases.
import { wrenError } from '../platform/errors'
import { isRecord } from '../platform/json'
import type { Properties } from '../flags/types'

export interface FlagsRequest {
  token: string
  distinctId: string
  groups: Record<string, string>
  personProperties: Properties
  groupProperties: Record<string, Properties>
  anonDistinctId: string | null
  deviceId: string | null
  geoipDisable: boolean
  disableFlags: boolean
  flagKeys: string[] | null
  evaluationContexts: string[] | null
  evaluationRuntime: string | null
}

const MAX_DISTINCT_ID = 200

/** Checks the token first (401), then the distinct id (400). */
export function readFlagsRequest(body: unknown): FlagsRequest {
  if (!isRecord(body)) throw wrenError('invalid_payload', 'Request body must be a JSON object.')
  const token = first(body, ['token', '$token', 'api_key'])
  if (typeof token !== 'string' || token.trim() === '')
    throw wrenError('no_api_key', 'API key not provided. You can find your project API key in your Wren project settings.')
  const rawId = first(body, ['distinct_id', '$distinct_id'])
  if (rawId === undefined || rawId === null || (typeof rawId !== 'string' && typeof rawId !== 'number')) {
    throw wrenError('missing_distinct_id', 'Decide requires a distinct_id.', 'distinct_id')
  }
  const idText = String(rawId)
  // At most 200 code points; a string of at most 200 UTF-16 units has no more than that.
  const distinctId = idText.length <= MAX_DISTINCT_ID ? idText : Array.from(idText).slice(0, MAX_DISTINCT_ID).join('')
  const personProperties = clean(recordOf(first(body, ['person_properties', '$properties'])))
  const groupsRaw = recordOf(first(body, ['groups', '$groups']))
  const groups: Record<string, string> = {}
  for (const [type, key] of Object.entries(groupsRaw)) if (typeof key === 'string' || typeof key === 'number') groups[type] = String(key)
  const groupProperties: Record<string, Properties> = {}
  for (const [type, props] of Object.entries(recordOf(first(body, ['group_properties', '$group_properties']))))
    if (isRecord(props)) groupProperties[type] = clean(props)
  const anon = first(body, ['$anon_distinct_id', 'anon_distinct_id']) ?? personProperties.$anon_distinct_id
  const device = first(body, ['$device_id', 'device_id']) ?? personProperties.$device_id
  const keys = first(body, ['flag_keys', 'flag_keys_to_evaluate'])
  const contexts = first(body, ['evaluation_contexts', 'evaluation_environments'])
  return {
    token: token.trim(),
    distinctId,
    groups,
    personProperties,
    groupProperties,
    anonDistinctId: typeof anon === 'string' && anon !== '' ? anon : null,
    deviceId: typeof device === 'string' && device !== '' ? device : null,
    geoipDisable: body.geoip_disable === true || body.geoip_disable === 'true',
    disableFlags: body.disable_flags === true || body.disable_flags === 'true',
    flagKeys: Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : null,
    evaluationContexts: Array.isArray(contexts) ? contexts.filter((k): k is string => typeof k === 'string') : null,
    evaluationRuntime: typeof body.evaluation_runtime === 'string' ? body.evaluation_runtime : null,
  }
}

function first(body: Record<string, unknown>, names: string[]): unknown {
  for (const n of names) if (body[n] !== undefined) return body[n]
  return undefined
}

function recordOf(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {}
}

/** NaN and ±Infinity cannot arrive in JSON, but a decoded form could carry them: they become null. */
function clean(props: Record<string, unknown>): Properties {
  const out: Properties = {}
  for (const [k, v] of Object.entries(props)) out[k] = typeof v === 'number' && !Number.isFinite(v) ? null : v
  return out
}
