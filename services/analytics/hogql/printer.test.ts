import { describe, expect, it } from 'vitest'
import { SqlParams } from '../../platform/clickhouse/params'
import { parseSelect } from './parser'
import { printQuery } from './printer'

const print = (text: string) => {
  const params = new SqlParams()
  const printed = printQuery(parseSelect(text, 'query'), { params, text, attr: 'query', team: 42, timezone: 'Europe/Berlin' })
  return { ...printed, params: params.values }
}
/** How many times the printed SQL reads a table of Wren's, and how many of those reads carry the team guard. */
const reads = (sql: string) => ({
  tables: (sql.match(/\bFROM (events|person|person_distinct_id|groups)\b/g) ?? []).length,
  guarded: (sql.match(/\bFROM (events|person|person_distinct_id|groups)\b[^]*?WHERE (events\.)?team_id = \{p0:Int64\}/g) ?? []).length,
})

describe('the HogQL printer', () => {
  it('prints the caller’s text only as parameters, and names of its own', () => {
    const { sql, params, columns } = print(
      "SELECT event AS `weird name`, properties.$browser FROM events AS e WHERE e.distinct_id = 'x'' OR 1'",
    )
    expect(columns).toEqual(['weird name', '$browser'])
    expect(sql).not.toContain('weird')
    expect(sql).not.toContain("x' OR 1")
    expect(sql).toMatch(/AS __t0/)
    expect(Object.values(params)).toEqual(expect.arrayContaining([42, 'Europe/Berlin', '$browser', "x' OR 1"]))
  })

  it('guards every table it reads: joins, subqueries, CTEs, unions, IN (SELECT …), a CTE named events', () => {
    for (const text of [
      'SELECT count() FROM events',
      'SELECT e.event, p.properties.email FROM events e LEFT JOIN persons p ON p.id = e.person_id',
      'SELECT count() FROM (SELECT distinct_id FROM events) AS s JOIN person_distinct_ids d ON d.distinct_id = s.distinct_id',
      'WITH events AS (SELECT * FROM events) SELECT count() FROM events',
      'WITH a AS (SELECT 1 AS x FROM events), b AS (SELECT x FROM a) SELECT * FROM b',
      'SELECT 1 FROM events UNION ALL SELECT 2 FROM persons UNION DISTINCT SELECT 3 FROM groups',
      'SELECT count() FROM events WHERE person_id IN (SELECT id FROM persons WHERE properties.plan = 1)',
      'SELECT (SELECT count() FROM sessions), count() FROM events',
      'SELECT count() FROM events AS persons JOIN persons AS events ON persons.person_id = events.id',
    ]) {
      const { tables, guarded } = reads(print(text).sql)
      expect(tables, text).toBeGreaterThan(0)
      expect(guarded, text).toBe(tables)
    }
  })

  it('leaves out the persons the key asking may not see, from every table that holds them', () => {
    const text =
      'SELECT count() FROM events e JOIN persons p ON p.id = e.person_id JOIN person_distinct_ids d ON d.distinct_id = e.distinct_id'
    const params = new SqlParams()
    const hidden = { uuids: ['00000000-0000-4000-8000-000000000001'], distinctIds: ['hidden'] }
    const { sql } = printQuery(parseSelect(text, 'query'), { params, text, attr: 'query', team: 42, hidden })
    expect(sql).toMatch(
      /WHERE events\.team_id = \{p0:Int64\} AND NOT \(events\.person_id IN \{p\d+:Array\(UUID\)\} OR events\.distinct_id IN/,
    )
    expect(sql).toMatch(/FROM person WHERE team_id = \{p0:Int64\} AND uuid NOT IN \{p\d+:Array\(UUID\)\}/)
    expect(sql).toMatch(/HAVING argMax\(is_deleted, version\) = 0 AND person_id NOT IN \{p\d+:Array\(UUID\)\}/)
  })

  it('prints the query language: aggregates, windows, lambdas, arrayJoin, CASE, regex, BETWEEN, LIMIT BY', () => {
    const cases: Array<[string, RegExp]> = [
      ['SELECT quantile(0.9)(properties.amount) FROM events', /quantile\(0\.9\)\(toFloat64OrNull\(JSONExtract/],
      [
        "SELECT count(DISTINCT person_id), uniqIf(distinct_id, event = 'x') FROM events",
        /count\(DISTINCT __t0\.person_id\) AS __c0, uniqIf\(/,
      ],
      [
        'SELECT row_number() OVER (PARTITION BY event ORDER BY timestamp DESC) FROM events',
        /row_number\(\) OVER \(PARTITION BY __t0\.event ORDER BY toTimeZone\(__t0\.timestamp, \{p1:String\}\) DESC\)/,
      ],
      [
        'SELECT lag(event) OVER w FROM events WINDOW w AS (ORDER BY timestamp)',
        /lagInFrame\(__t0\.event\) OVER __w\d+[^]*WINDOW __w\d+ AS \(ORDER BY toTimeZone\(__t0\.timestamp, \{p1:String\}\) ASC\)/,
      ],
      ['SELECT arrayMap(x -> x * 2, [1, 2])', /arrayMap\(\(__l\d+\) -> \(__l\d+ \* \{p\d+:Int64\}\)/],
      ["SELECT arrayJoin(splitByChar(',', event)) AS part FROM events", /arrayJoin\(splitByChar\(/],
      ['SELECT n FROM events ARRAY JOIN [1, 2] AS n', /ARRAY JOIN \[\{p\d+:Int64\}, \{p\d+:Int64\}\] AS __a\d+/],
      ["SELECT CASE WHEN event = 'a' THEN 1 ELSE 2 END FROM events", /if\(ifNull\(__t0\.event = \{p\d+:String\}, 0\)/],
      ["SELECT event =~ 'sign.*' FROM events", /ifNull\(match\(__t0\.event, \{p\d+:String\}\), 0\)/],
      ['SELECT 1 FROM events WHERE timestamp BETWEEN now() - INTERVAL 7 DAY AND now()', /__t0\.timestamp BETWEEN \(now\(\) - toIntervalDay/],
      // Datetimes read in the project's timezone; compared with an instant, as stored (the table's keys prune).
      ['SELECT toStartOfDay(timestamp) FROM events WHERE timestamp >= now()', /toStartOfDay\(toTimeZone\(__t0\.timestamp, \{p1:String\}\)\)[^]*WHERE ifNull\(__t0\.timestamp >= now\(\), 0\)/],
      ["SELECT 1 FROM events WHERE timestamp >= '2026-01-01'", /WHERE ifNull\(toTimeZone\(__t0\.timestamp, \{p1:String\}\) >= \{p\d+:String\}, 0\)/],
      ['SELECT event FROM events LIMIT 1 BY event', /LIMIT 1 BY __t0\.event/],
      [
        "SELECT properties.a.b, properties['c']['d'] FROM events",
        /JSONExtract\(__t0\.properties, \{p\d+:String\}, \{p\d+:String\}, 'Nullable\(String\)'\)/,
      ],
      [
        'SELECT session.$session_duration FROM events',
        /if\(__t0\.session_key = '', NULL, __t0\.session_duration\)[^]*sessions\.session_duration AS session_duration/,
      ],
      ['SELECT number FROM numbers(10)', /FROM numbers\(10\) AS __t0/],
      ['SELECT properties.amount > 5 FROM events', /toFloat64OrNull\(JSONExtract\(__t0\.properties/],
    ]
    for (const [text, expected] of cases) expect(print(text).sql, text).toMatch(expected)
  })

  it('refuses, naming the construct and its line and column', () => {
    const refusals: Array<[string, RegExp]> = [
      ['SELECT * FROM system.tables', /^Unknown table 'system\.tables': HogQL reads events, .* \(line 1, column 15\)\.$/],
      ["SELECT 1\nFROM file('/etc/passwd')", /Unknown table function 'file'.*\(line 2, column 6\)/],
      ["SELECT * FROM url('x')", /Unknown table function 'url'/],
      ['SELECT sleep(3)', /function 'sleep' is not available \(line 1, column 8\)/],
      ['SELECT team_id FROM events', /Unable to resolve field: team_id/],
      ['SELECT nope FROM events', /Unable to resolve field: nope/],
      ['SELECT x.event FROM events', /Unable to resolve field: x\.event/],
      ['SELECT 1 SETTINGS max_threads = 1', /Unsupported HogQL: SelectStmt\.settingsClause/],
      ['SELECT * FROM events SAMPLE 0.1', /SAMPLE is not supported/],
      ['SELECT * FROM events e JOIN persons p USING (id)', /USING is not supported/],
      ['SELECT 1 UNION ALL SELECT 1, 2', /select 1 and 2 columns/],
      ['SELECT sum(count()) FROM events', /cannot aggregate an aggregate/],
      ['SELECT 99999999999999999999', /99999999999999999999 is past 2\^53/],
      ['SELECT {filters}', /placeholder \{filters\} is not available here/],
      ['SELECT x IN COHORT 3 FROM events', /IN COHORT is not supported/],
      ['SELEC 1', /Syntax error: mismatched input 'SELEC'/],
    ]
    for (const [text, expected] of refusals) {
      let message = ''
      try {
        print(text)
      } catch (err) {
        message = (err as Error).message
        expect((err as { code?: string }).code, text).toBe('invalid_hogql')
      }
      expect(message, text).toMatch(expected)
    }
  })
})
