import { describe, expect, it } from 'vitest'
import { checkFieldSizes, MAX_DESCRIPTION_CHARS, MAX_FIELD_BYTES, MAX_NAME_CHARS } from './limits'

const refused = (body: unknown) => {
  try {
    checkFieldSizes(body)
    return null
  } catch (err) {
    return err as { status: number; code: string; attr: string | null }
  }
}

describe('checkFieldSizes', () => {
  it('takes fields up to their limits', () => {
    expect(
      refused({
        name: 'n'.repeat(MAX_NAME_CHARS),
        key: 'k'.repeat(MAX_NAME_CHARS),
        description: 'd'.repeat(MAX_DESCRIPTION_CHARS),
        filters: { groups: ['x'.repeat(MAX_FIELD_BYTES - 20)] },
      }),
    ).toBeNull()
    expect(refused(null)).toBeNull()
    expect(refused('a string body')).toBeNull()
  })

  it('names the first field over its limit', () => {
    expect(refused({ name: 'n'.repeat(MAX_NAME_CHARS + 1) })).toMatchObject({ status: 400, code: 'max_length', attr: 'name' })
    expect(refused({ label: 'l'.repeat(MAX_NAME_CHARS + 1) })).toMatchObject({ attr: 'label' })
    expect(refused({ name: 'ok', description: 'd'.repeat(MAX_DESCRIPTION_CHARS + 1) })).toMatchObject({ attr: 'description' })
    expect(refused({ steps: [{ event: 'e'.repeat(MAX_FIELD_BYTES) }] })).toMatchObject({ attr: 'steps' })
    expect(refused({ test_account_filters: 'x'.repeat(MAX_FIELD_BYTES + 1) })).toMatchObject({ attr: 'test_account_filters' })
    // Multi-byte characters count as the bytes they take.
    expect(refused({ tags: ['é'.repeat(MAX_FIELD_BYTES / 2)] })).toMatchObject({ attr: 'tags' })
  })

  it('leaves a static cohort’s members to the upload limit', () => {
    expect(
      refused({
        name: 'Big list',
        distinct_ids: Array.from({ length: 20_000 }, (_, i) => `user-${i}-${'x'.repeat(10)}`),
        csv: 'x'.repeat(MAX_FIELD_BYTES * 2),
      }),
    ).toBeNull()
  })
})
