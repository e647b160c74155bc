import { describe, expect, it } from 'vitest'
import { WrenError } from '../../platform/errors'
import { parseFlagFilter, parsePropertyFilters, parsePropertyGroup, storedFlagFilter } from './parse'
import { operatorsFor } from './operators'

const refusal = (parse: () => unknown) => {
  try {
    parse()
  } catch (err) {
    if (err instanceof WrenError) return { status: err.status, attr: err.toJSON().attr }
    throw err
  }
  return null
}

describe('the one property-filter parser', () => {
  it('reads the lists strictly and queries leniently, from the same filters', () => {
    // A lone object: an old-style {"key__operator": value} filter for a query, a mistake on a list.
    expect(parsePropertyGroup('{"key":"plan"}', 'properties').values).toEqual([
      { key: 'key', value: 'plan', operator: 'exact', type: 'event' },
    ])
    expect(refusal(() => parsePropertyFilters('{"key":"plan"}'))).toEqual({ status: 400, attr: 'properties' })
    // A list entry without a key names the entry in a query, the parameter on a list.
    expect(refusal(() => parsePropertyGroup([{ value: 'x' }], 'properties'))).toEqual({ status: 400, attr: 'properties[0]' })
    expect(refusal(() => parsePropertyFilters([{ value: 'x' }]))).toEqual({ status: 400, attr: 'properties' })
    expect(parsePropertyFilters([{ key: 'plan', value: 'pro', operator: 'icontains', type: 'person' }])).toEqual([
      { key: 'plan', value: 'pro', operator: 'icontains', type: 'person' },
    ])
  })

  it('takes its operators from one list, refusing those that cannot run where the filter is used', () => {
    expect(parsePropertyFilters([{ key: 'age', operator: 'min', value: 3 }])[0].operator).toBe('min')
    expect(refusal(() => parsePropertyFilters([{ key: 'v', operator: 'semver_gt', value: '1.0.0' }]))).toEqual({
      status: 400,
      attr: 'properties',
    })
    expect(refusal(() => parsePropertyGroup([{ key: 'v', operator: 'semver_gt', value: '1.0.0' }], 'properties'))).toEqual({
      status: 400,
      attr: 'properties[0]',
    })
    expect(parseFlagFilter({ key: 'v', operator: 'semver_gt', value: '1.0.0' }, 'filters.groups[0].properties[0]').operator).toBe(
      'semver_gt',
    )
    expect(refusal(() => parseFlagFilter({ key: 'age', operator: 'min', value: 3 }, 'filters.groups[0].properties[0]'))).toEqual({
      status: 400,
      attr: 'filters',
    })
    expect(operatorsFor('sql')).toContain('not_between')
    expect(operatorsFor('memory')).toContain('not_between')
  })

  it('gives decide the shape the flag was validated into', () => {
    const stored = { key: 'plan', value: ['pro'], operator: null, group_type_index: 0, negation: true }
    expect(storedFlagFilter(stored)).toEqual(parseFlagFilter(stored, 'f'))
    expect(storedFlagFilter(stored)).toEqual({
      key: 'plan',
      value: ['pro'],
      operator: 'exact',
      type: 'person',
      groupTypeIndex: 0,
      negation: true,
    })
  })
})
