import { describe, expect, it } from 'vitest'
import { SqlParams } from './params'
import { compileHogql } from './hogql'

describe('restricted hogql', () => {
  it('turns properties and literals into parameters', () => {
    const params = new SqlParams()
    const sql = compileHogql("concat(properties.$browser, ' / ', person.properties['plan name']) AS label", params)
    expect(sql).toBe("concat(JSONExtract(properties, {p0:String}, 'Nullable(String)'), {p1:String}, JSONExtract(person_properties, {p2:String}, 'Nullable(String)'))")
    expect(params.values).toEqual({ p0: '$browser', p1: ' / ', p2: 'plan name' })
  })
  it('refuses tables, subqueries, unknown columns and functions', () => {
    for (const bad of ['(SELECT 1)', 'team_id', "file('x')", 'properties.a FROM events', 'person.id', "remote('h', 'db', 't')", 'a; DROP TABLE events', 'events.properties']) {
      expect(() => compileHogql(bad, new SqlParams()), bad).toThrow(/not allowed|Cannot read/)
    }
  })
})
