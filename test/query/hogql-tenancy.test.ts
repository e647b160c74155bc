// HogQLQuery's tenancy: hostile queries that try to reach another project's rows (joins, subqueries, CTEs,
// unions, IN (SELECT …), system tables, table functions, SETTINGS, comments, quote and unicode escapes, aliases
// and CTEs named like tables) are each a 400 naming the construct, or answer with the caller's rows only. And
// PostHog's documented example queries answer with the expected rows. Run on chDB and on the ClickHouse HTTP
// fixture, through the kind itself (the Query API's endpoint runs the same `run`).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  insertRows,
  migrate,
  openEmbeddedClickHouse,
  openServerClickHouse,
  type ClickHouseClient,
} from '../../services/platform/clickhouse'
import { fromClickHouseError, WrenError } from '../../services/platform/errors'
import type { Project } from '../../services/platform/tenancy'
import { hogqlQueryKind } from '../../services/query/kinds/hogql'
import { startClickHouseFixture, type ClickHouseFixture } from '../support/clickhouse-http'

const MINE = 7
const THEIRS = 8
const project = (id: number, timezone = 'UTC'): Project =>
  ({ id, name: `p${id}`, apiToken: `t${id}`, timezone, settings: {}, createdAt: '2026-01-01T00:00:00Z' }) as Project

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`
const event = (team: number, n: number, name: string, distinct: string, props: Record<string, unknown>, at: string) => ({
  uuid: uuid(team * 100 + n),
  event: name,
  properties: JSON.stringify(props),
  timestamp: at,
  team_id: team,
  distinct_id: distinct,
  elements_chain: '',
  created_at: at,
  person_id: uuid(team * 1000 + distinct.length),
  person_created_at: at,
  person_properties: JSON.stringify({ email: `${distinct}@team${team}.example` }),
  person_mode: 'full',
  group0_properties: '',
  group1_properties: '',
  group2_properties: '',
  group3_properties: '',
  group4_properties: '',
  _partition: 0,
  _offset: n,
})

interface Engine {
  name: string
  open(): Promise<{ client: ClickHouseClient; close(): Promise<void> }>
}
const ENGINES: Engine[] = [
  {
    name: 'chDB',
    async open() {
      const dir = await mkdtemp(path.join(tmpdir(), 'wren-hogql-'))
      const client = await openEmbeddedClickHouse(dir)
      return { client, close: async () => (await client.close(), await rm(dir, { recursive: true, force: true })) }
    },
  },
  {
    name: 'ClickHouse HTTP',
    async open() {
      const fixture: ClickHouseFixture = await startClickHouseFixture()
      const client = await openServerClickHouse({
        url: fixture.url,
        username: fixture.user,
        password: fixture.password,
        database: 'wren',
        cluster: null,
      })
      return { client, close: async () => (await client.close(), await fixture.stop()) }
    },
  },
]

describe.each(ENGINES)(
  'HogQLQuery tenancy on $name',
  (engine) => {
    let client: ClickHouseClient
    let close: () => Promise<void>
    const run = async (query: string, extra: Record<string, unknown> = {}, id = MINE) =>
      hogqlQueryKind.run(
        { clickhouse: client },
        { project: project(id, 'Europe/Berlin'), now: new Date('2026-03-10T12:00:00Z'), signal: new AbortController().signal },
        hogqlQueryKind.parse({ kind: 'HogQLQuery', query, ...extra }),
      )
    const rows = async (query: string, extra?: Record<string, unknown>) => (await run(query, extra)).results as unknown[][]
    /** A 400 of the printer naming `construct` (and a position, for constructs in the text). */
    const refused = async (query: string, construct: RegExp) => {
      const err = await run(query).then(
        () => null,
        (e: unknown) => e,
      )
      expect(err, query).toBeInstanceOf(WrenError)
      const e = err as WrenError
      expect({ status: e.status, code: e.code }, `${query}: ${e.message}`).toEqual({ status: 400, code: 'invalid_hogql' })
      expect(e.message, query).toMatch(construct)
    }

    beforeAll(async () => {
      ;({ client, close } = await engine.open())
      await migrate(client)
      await insertRows(client, 'events', [
        event(MINE, 1, '$pageview', 'ann', { $browser: 'Chrome', amount: 12 }, '2026-03-09 10:00:00'),
        event(MINE, 2, '$pageview', 'bob', { $browser: 'Firefox', amount: 3 }, '2026-03-09 23:30:00'),
        event(MINE, 3, 'signed up', 'ann', { plan: 'pro' }, '2026-03-08 08:00:00'),
        event(THEIRS, 1, '$pageview', 'eve', { $browser: 'Secret', secret: 'theirs' }, '2026-03-09 11:00:00'),
        event(THEIRS, 2, 'secret', 'mallory', { secret: 'theirs' }, '2026-03-09 12:00:00'),
      ])
      await insertRows(client, 'person', [
        {
          team_id: MINE,
          uuid: uuid(MINE * 1000 + 3),
          id: 1,
          properties: '{"email":"ann@team7.example"}',
          is_identified: 1,
          is_deleted: 0,
          version: 0,
          created_at: '2026-03-01 00:00:00',
          _partition: 0,
          _offset: 1,
        },
        {
          team_id: THEIRS,
          uuid: uuid(THEIRS * 1000 + 3),
          id: 2,
          properties: '{"email":"eve@team8.example"}',
          is_identified: 1,
          is_deleted: 0,
          version: 0,
          created_at: '2026-03-01 00:00:00',
          _partition: 0,
          _offset: 2,
        },
      ])
    }, 120_000)
    afterAll(async () => {
      await close?.()
    })

    it('answers PostHog’s documented examples with the caller’s rows, in PostHog’s shape', async () => {
      const byEvent = await run('SELECT event, count() AS c FROM events GROUP BY event ORDER BY c DESC, event')
      expect(byEvent).toMatchObject({
        results: [
          ['$pageview', 2],
          ['signed up', 1],
        ],
        columns: ['event', 'c'],
        types: [
          ['event', 'String'],
          ['c', 'UInt64'],
        ],
        hasMore: false,
        limit: 100,
        offset: 0,
      })
      expect(byEvent.hogql).toContain('LIMIT 100')
      // properties.$browser and person.properties, and datetimes in the project's timezone (Berlin: +01:00).
      expect(
        await rows(
          "SELECT properties.$browser, person.properties.email, timestamp FROM events WHERE event = '$pageview' ORDER BY timestamp",
        ),
      ).toEqual([
        ['Chrome', 'ann@team7.example', '2026-03-09T11:00:00+01:00'],
        ['Firefox', 'bob@team7.example', '2026-03-10T00:30:00+01:00'],
      ])
      // The docs' daily count, by the project's days: bob's 23:30 UTC pageview is on the 10th in Berlin.
      expect(
        await rows("SELECT toDate(timestamp) AS day, count() FROM events WHERE event = '$pageview' GROUP BY day ORDER BY day"),
      ).toEqual([
        ['2026-03-09', 1],
        ['2026-03-10', 1],
      ])
      expect(await rows('SELECT sum(properties.amount) FROM events')).toEqual([[15]])
      expect(await rows('SELECT count() FROM persons')).toEqual([[1]])
    })

    it('pages a query without a LIMIT of its own, and caps one with its own', async () => {
      const first = await run('SELECT event FROM events ORDER BY timestamp', { limit: 2 })
      expect(first).toMatchObject({ results: [['signed up'], ['$pageview']], hasMore: true, limit: 2, offset: 0 })
      const next = await run('SELECT event FROM events ORDER BY timestamp', { limit: 2, offset: 2 })
      expect(next).toMatchObject({ results: [['$pageview']], hasMore: false, offset: 2 })
      const own = await run('SELECT number FROM numbers(60000) LIMIT 60000')
      expect((own.results as unknown[]).length).toBe(50_000)
      expect(own.hasMore).toBeUndefined()
    })

    it('runs the language: joins, CTEs, unions, windows, lambdas, arrayJoin, sessions', async () => {
      expect(
        await rows(
          "SELECT e.distinct_id, p.properties.email FROM events e JOIN persons p ON p.id = e.person_id WHERE e.event = 'signed up'",
        ),
      ).toEqual([['ann', 'ann@team7.example']])
      expect(
        await rows(
          'WITH v AS (SELECT distinct_id, count() AS n FROM events GROUP BY distinct_id) SELECT distinct_id, n FROM v ORDER BY n DESC, distinct_id',
        ),
      ).toEqual([
        ['ann', 2],
        ['bob', 1],
      ])
      expect(
        await rows(
          'SELECT distinct_id, row_number() OVER (PARTITION BY distinct_id ORDER BY timestamp) AS k FROM events ORDER BY distinct_id, k',
        ),
      ).toEqual([
        ['ann', 1],
        ['ann', 2],
        ['bob', 1],
      ])
      expect(await rows('SELECT arrayMap(x -> x * 2, [1, 2, 3]), arrayFilter(x -> x > 1, [1, 2, 3])')).toEqual([
        [
          [2, 4, 6],
          [2, 3],
        ],
      ])
      expect(await rows("SELECT arrayJoin(['a', 'b']) AS letter ORDER BY letter")).toEqual([['a'], ['b']])
      expect(await rows('SELECT x FROM (SELECT 1 AS x UNION ALL SELECT 2) ORDER BY x')).toEqual([[1], [2]])
      expect(await rows('SELECT count() FROM events WHERE person_id IN (SELECT id FROM persons)')).toEqual([[3]])
      expect(await rows('SELECT count() FROM sessions')).toEqual([[0]])
    })

    it('expands {filters} and {variables}, as PostHog’s HogQLQuery does', async () => {
      const q = 'SELECT count() FROM events WHERE {filters} AND event = {variables.name}'
      const variables = { v1: { variableId: 'v1', code_name: 'name', value: '$pageview' } }
      expect(await rows(q, { variables, filters: { dateRange: { date_from: '2026-03-09', date_to: '2026-03-10' } } })).toEqual([[2]])
      expect(
        await rows(q, {
          variables,
          filters: {
            dateRange: { date_from: '-1d' },
            properties: [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }],
          },
        }),
      ).toEqual([[1]])
      expect(await rows(q, { variables, filters: { dateRange: { date_from: '2026-03-10' } } })).toEqual([[1]])
      await expect(run(q, { filters: {} })).rejects.toThrow(/Variable name is missing from query/)
      await expect(run('SELECT count() FROM events e JOIN persons p ON p.id = e.person_id WHERE {filters}')).rejects.toThrow(
        /\{filters\} works only/,
      )
    })

    it('confines every table it reads to the caller’s project: joins, subqueries, CTEs, unions, IN', async () => {
      const secret = "'theirs'"
      const confined = [
        `SELECT count() FROM events WHERE properties.secret = ${secret}`,
        `SELECT count() FROM events e JOIN events t ON e.uuid = t.uuid WHERE t.properties.secret = ${secret}`,
        `SELECT count() FROM (SELECT * FROM events WHERE distinct_id = 'eve')`,
        `WITH events AS (SELECT * FROM events) SELECT count() FROM events WHERE distinct_id = 'mallory'`,
        `WITH x AS (SELECT distinct_id FROM events) SELECT count() FROM x WHERE distinct_id IN ('eve', 'mallory')`,
        `SELECT count() FROM events WHERE distinct_id IN (SELECT distinct_id FROM events WHERE properties.secret = ${secret})`,
        `SELECT count() FROM (SELECT distinct_id FROM events WHERE event = 'secret' UNION ALL SELECT distinct_id FROM events WHERE distinct_id = 'eve')`,
        `SELECT count() FROM persons WHERE properties.email LIKE '%team8%'`,
        `SELECT count() FROM events AS persons WHERE persons.distinct_id = 'eve'`,
        `SELECT count() FROM events /* team_id = ${THEIRS} */ WHERE distinct_id = 'eve' -- OR 1`,
        `SELECT count() FROM events WHERE \`distinct_id\` = 'mallory'`,
      ]
      for (const q of confined) expect(await rows(q), q).toEqual([[0]])
      // Quote escapes: the string ends where the grammar says, and whatever it holds is one bound value.
      for (const q of [
        `SELECT count() FROM events WHERE distinct_id = 'eve\\' OR team_id = ${THEIRS} OR \\''`,
        `SELECT count() FROM events WHERE distinct_id = 'eve'' OR team_id = ${THEIRS} OR '''`,
        `SELECT count() FROM events WHERE distinct_id = 'eve\\'' OR distinct_id = 'mallory' --'`,
        `SELECT count() FROM events WHERE distinct_id = '\\x65ve'`,
        `SELECT count() FROM events WHERE distinct_id = '\\u0065ve'`,
        `SELECT count() FROM events WHERE distinct_id = 'e\u0000' OR team_id = ${THEIRS}`,
        `SELECT count() FROM \u0065vents WHERE distinct_id = 'eve'`,
      ]) {
        const answer = await run(q).then(
          (r) => r.results,
          (e: unknown) => (e instanceof WrenError && e.status === 400 && e.code === 'invalid_hogql' ? 'refused' : e),
        )
        expect(['refused', [[0]]], q).toContainEqual(answer)
      }
      // The same text, asked by the other project, reads its own rows.
      const theirs = await run('SELECT count() FROM events', {}, THEIRS)
      expect(theirs.results).toEqual([[2]])
    })

    it('refuses what reaches past the project, naming it and where it is', async () => {
      await refused('SELECT * FROM system.tables', /Unknown table 'system\.tables'.*\(line 1, column 15\)/)
      await refused('SELECT count() FROM system.one', /Unknown table 'system\.one'/)
      await refused("SELECT * FROM url('http://127.0.0.1/x', 'CSV', 'a String')", /Unknown table function 'url'/)
      await refused("SELECT * FROM file('/etc/passwd')", /Unknown table function 'file'/)
      await refused("SELECT * FROM remote('127.0.0.1', 'default', 'events')", /Unknown table function 'remote'/)
      await refused("SELECT * FROM s3('http://x/y')", /Unknown table function 's3'/)
      await refused("SELECT * FROM executable('x', 'TSV', 'a String')", /Unknown table function 'executable'/)
      await refused('SELECT * FROM input()', /Unknown table function 'input'/)
      await refused('SELECT * FROM person', /Unknown table 'person'/)
      await refused('SELECT * FROM default.events', /Unknown table 'default\.events'/)
      await refused('SELECT 1 SETTINGS readonly = 0', /Unsupported HogQL: SelectStmt\.settingsClause/)
      await refused("SELECT 1 INTO OUTFILE '/tmp/x'", /Syntax error/)
      await refused('SELECT 1; SELECT 2', /Syntax error/)
      await refused("SELECT file('/etc/passwd')", /function 'file' is not available/)
      await refused("SELECT dictGet('d', 'a', 1)", /function 'dictGet' is not available/)
      await refused("SELECT joinGet('events', 'a', 1)", /function 'joinGet' is not available/)
      await refused('SELECT count() FROM events WHERE team_id = 8', /Unable to resolve field: team_id/)
      await refused('SELECT events.team_id FROM events', /'team_id' is not a field/)
      await refused('SELECT 1 AS team_id', /"team_id" cannot be an alias or identifier, as it's a reserved keyword/)
      await refused('SELECT * FROM events e JOIN persons p USING (id)', /USING is not supported/)
      await refused('INSERT INTO events VALUES (1)', /Syntax error/)
      // What ClickHouse refuses of a query's own shape is the caller's 400 too, never a 500.
      // (the error handler reads ClickHouse's error as the HTTP answer: errors.ts fromClickHouseError).
      const shape = fromClickHouseError(await run("SELECT dateDiff('day', now())").catch((e: unknown) => e))
      expect({ status: shape?.status, code: shape?.code }).toEqual({ status: 400, code: 'invalid_expression' })
    })
  },
  300_000,
)
