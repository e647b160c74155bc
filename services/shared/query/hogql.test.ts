import { describe, expect, it } from 'vitest'
import { SqlParams } from './params'
import { compileHogql } from './hogql'
import { EventPersonId } from './persons-sql'

describe('restricted hogql', () => {
  it('turns properties and literals into parameters', () => {
    const params = new SqlParams()
    const sql = compileHogql(
      "concat(properties.$browser, ' / ', person.properties['plan name']) AS label",
      params,
      new EventPersonId(false),
    )
    expect(sql).toBe(
      "concat(JSONExtract(properties, {p0:String}, 'Nullable(String)'), {p1:String}, JSONExtract(person_properties, {p2:String}, 'Nullable(String)'))",
    )
    expect(params.values).toEqual({ p0: '$browser', p1: ' / ', p2: 'plan name' })
  })
  it('refuses tables, subqueries, unknown columns and functions', () => {
    for (const bad of [
      '(SELECT 1)',
      'team_id',
      "file('x')",
      'properties.a FROM events',
      'person.id',
      "remote('h', 'db', 't')",
      'a; DROP TABLE events',
      'events.properties',
    ]) {
      expect(() => compileHogql(bad, new SqlParams(), new EventPersonId(false)), bad).toThrow(/not allowed|Cannot read/)
    }
  })
})

describe('the person of an events row', () => {
  it('is read as stored, with no join, when no distinct id of the project ever moved', () => {
    const personId = new EventPersonId(false)
    expect(compileHogql('person_id', new SqlParams(), personId)).toBe('person_id')
    expect(personId.join('team_id = 1')).toBe('')
  })
  it('takes the override of a moved distinct id, and the query gets the override join once it reads the person', () => {
    const personId = new EventPersonId(true)
    expect(personId.join('team_id = 1')).toBe('')
    expect(compileHogql('person_id', new SqlParams(), personId)).toMatch(/^if\(override_person_id = .*, person_id, override_person_id\)$/)
    expect(personId.join('team_id = 1')).toMatch(
      /^LEFT JOIN \(SELECT distinct_id AS override_distinct_id.* FROM person_distinct_id WHERE team_id = 1 /s,
    )
  })
})
