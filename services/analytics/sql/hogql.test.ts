import { describe, expect, it } from 'vitest'
import { SqlParams } from '../../platform/clickhouse/params'
import { compileHogql, hogqlReadsEvent } from './hogql'
import { EventPersonId } from './persons-sql'

describe('hogql expressions', () => {
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
  it('reads person.id as the row’s person (PostHog’s field; the subset refused it)', () => {
    expect(compileHogql('person.id', new SqlParams(), new EventPersonId(false))).toBe('person_id')
  })
  it('refuses tables, subqueries, unknown columns and functions', () => {
    for (const bad of [
      '(SELECT 1)',
      'team_id',
      "file('x')",
      'properties.a FROM events',
      'person.uuid',
      "remote('h', 'db', 't')",
      'a; DROP TABLE events',
      'events.properties',
    ]) {
      expect(() => compileHogql(bad, new SqlParams(), new EventPersonId(false)), bad).toThrow(
        /not available|not a field|Syntax error|Unable to resolve/,
      )
    }
  })
})

describe('over a person', () => {
  it('reads properties and person.properties as the person’s, and has no event columns', () => {
    const uuid = { sql: 'uuid' }
    expect(compileHogql("person.properties.plan = 'pro' AND person_id IS NOT NULL", new SqlParams(), uuid, { table: 'persons' })).toBe(
      "(ifNull(JSONExtract(properties, {p0:String}, 'Nullable(String)') = {p1:String}, 0) AND (uuid IS NOT NULL))",
    )
    expect(() => compileHogql("event = 'x'", new SqlParams(), uuid, { table: 'persons' })).toThrow(/'event' is not a field of persons/)
  })
  it('tells expressions that read the event from those that read only its person (the recordings list)', () => {
    expect(hogqlReadsEvent("properties.$browser = 'Chrome'")).toBe(true)
    expect(hogqlReadsEvent("event = '$pageview' AND person.properties.plan = 'pro'")).toBe(true)
    expect(hogqlReadsEvent("person.properties.plan = 'pro' AND lower(person.properties.event) = 'x'")).toBe(false)
    expect(hogqlReadsEvent('person_id IS NOT NULL')).toBe(false)
    // An event's session is read through the event.
    expect(hogqlReadsEvent('session.$session_duration > 60')).toBe(true)
  })
})

describe('as a filter', () => {
  it('refuses hostile expressions with a 400 at once, before the parser: deep nesting, long chains, long texts', () => {
    const compile = (src: string) => () =>
      compileHogql(src, new SqlParams(), new EventPersonId(false), { filter: true, attr: 'properties' })
    const nested = (depth: number) => `${'('.repeat(depth)}properties.a = 'b'${')'.repeat(depth)}`
    expect(compile(nested(31))).not.toThrow()
    // 900 brackets overflow the WebAssembly parser's stack: refused before it reads them.
    expect(compile(nested(900))).toThrow(/nest more than 32 deep \(line 1, column 33\)/)
    expect(compile(`abs(${nested(900)})`)).toThrow(/nest more than 32 deep/)
    expect(compile(`${Array(300).fill('1').join(' + ')} = 1`)).toThrow(/more than 250 operators/)
    expect(compile(`${'NOT '.repeat(40)}1 = 1`)).toThrow(/more than 32 NOTs/)
    const started = Date.now()
    expect(compile(`1${' '.repeat(200_000)}x`)).toThrow(/200002 characters long, past the 2000/)
    expect(Date.now() - started).toBeLessThan(1000)
    expect(compileHogql("properties.a = 'b'   AS   `label` ", new SqlParams(), new EventPersonId(false))).not.toContain('label')
  })
  it('names functions by an own lookup: toString is the function, not Object.prototype.toString', () => {
    expect(compileHogql("toString(properties.a) = '1'", new SqlParams(), new EventPersonId(false))).toBe(
      "ifNull(toString(JSONExtract(properties, {p0:String}, 'Nullable(String)')) = {p1:String}, 0)",
    )
    expect(compileHogql('toInt(properties.a)', new SqlParams(), new EventPersonId(false))).toMatch(/^toInt64OrNull\(toString\(/)
  })
  it('is a condition on one row: no aggregates, no bare values', () => {
    const filter = (src: string) => () => compileHogql(src, new SqlParams(), new EventPersonId(false), { filter: true, attr: 'properties' })
    expect(filter("properties.plan = 'pro'")).not.toThrow()
    expect(filter('count() > 1')).toThrow(/'count' aggregates rows/)
    expect(filter('properties.plan')).toThrow(/must be a condition/)
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
