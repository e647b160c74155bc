import { describe, expect, it } from 'vitest'
import { SqlParams } from '../platform/clickhouse/params'
import { cohortGroup, cohortResolver } from './membership'
import type { Cohort } from './store'

const cohort = (id: number, properties: unknown, isStatic = false): Cohort => ({
  id,
  teamId: 1,
  name: `c${id}`,
  description: '',
  filters: { properties },
  isStatic,
  createdAt: '',
  updatedAt: '',
  deleted: false,
  version: 1,
})

describe('cohort membership', () => {
  it('reads legacy groups as an OR of ANDs', () => {
    expect(
      cohortGroup(undefined, [
        { properties: [{ key: 'a', value: 1, type: 'person' }] },
        { properties: [{ key: 'b', value: 2, type: 'person' }] },
      ]),
    ).toMatchObject({
      type: 'OR',
      values: [
        { type: 'AND', values: [{ key: 'a' }] },
        { type: 'AND', values: [{ key: 'b' }] },
      ],
    })
  })

  it('nests cohorts, maps static ones through distinct ids, and refuses cycles and unknown ids', () => {
    const cohorts = new Map([
      [1, cohort(1, { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] })],
      [2, cohort(2, { type: 'AND', values: [{ type: 'cohort', key: 'id', value: 1 }] })],
      [3, cohort(3, null, true)],
      [4, cohort(4, { type: 'AND', values: [{ type: 'cohort', key: 'id', value: 5 }] })],
      [5, cohort(5, { type: 'AND', values: [{ type: 'cohort', key: 'id', value: 4 }] })],
    ])
    const members = cohortResolver(1, cohorts, new SqlParams())
    expect(members(2)).toContain('uuid IN (SELECT uuid FROM')
    expect(members(3)).toContain('cohort_static_members')
    expect(() => members(4)).toThrow(/refers to itself/)
    expect(() => members(9)).toThrow(/Cohort 9 does not exist/)
  })
})
