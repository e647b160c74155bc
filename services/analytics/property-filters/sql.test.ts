import { describe, expect, it } from 'vitest'
import { SqlParams } from '../../platform/clickhouse/params'
import { compileGroup, eventColumns, type FilterContext } from './sql'
import { parsePropertyGroup } from './parse'
import { EventPersonId } from '../sql/persons-sql'

const ctx = (): FilterContext => ({
  params: new SqlParams(),
  columns: eventColumns(new EventPersonId(false)),
  cohortMembers: (id) => `SELECT ${id}`,
  dateParam: (v) => `'${v}'`,
})

describe('property filters', () => {
  it('normalises lists, nested groups and the old key__operator style', () => {
    expect(parsePropertyGroup([{ key: 'a', value: 1 }], 'properties')).toEqual({
      type: 'AND',
      values: [{ key: 'a', value: 1, operator: 'exact', type: 'event' }],
    })
    expect(parsePropertyGroup('{"plan__icontains": "pro"}', 'properties').values[0]).toMatchObject({
      key: 'plan',
      operator: 'icontains',
      value: 'pro',
    })
    expect(
      parsePropertyGroup({ type: 'OR', values: [{ type: 'AND', values: [{ key: 'x', type: 'events', values: ['1', null] }] }] }, 'p'),
    ).toEqual({
      type: 'OR',
      values: [{ type: 'AND', values: [{ key: 'x', type: 'event', operator: 'exact', value: ['1'] }] }],
    })
    expect(parsePropertyGroup([{ type: 'static-cohort', value: 3 }], 'p').values[0]).toMatchObject({ type: 'cohort', key: 'id', value: 3 })
  })

  it('refuses unknown operators and types with the field named', () => {
    expect(() => parsePropertyGroup([{ key: 'a', operator: 'roughly' }], 'properties')).toThrow(/unknown operator 'roughly'/)
    expect(() => parsePropertyGroup([{ key: 'a', type: 'weather' }], 'properties')).toThrow(/unknown property type 'weather'/)
    expect(() => compileGroup(parsePropertyGroup([{ key: 'a', operator: 'gt', value: 'lots' }], 'p'), ctx())).toThrow(/needs a number/)
  })

  it('keeps values out of the SQL text', () => {
    const c = ctx()
    const sql = compileGroup(
      parsePropertyGroup([{ key: "x'); DROP TABLE events; --", value: "'; SELECT 1 --", operator: 'icontains' }], 'p'),
      c,
    )
    expect(sql).not.toContain('DROP')
    expect(sql).not.toContain('SELECT 1')
    expect(Object.values(c.params.values)).toEqual(["x'); DROP TABLE events; --", "'; SELECT 1 --"])
  })
})
