// Wren's CLICKHOUSE_URL path: the real @clickhouse/client over HTTP, against the ClickHouse HTTP test
// fixture (test/support/clickhouse-http-server.ts, one chDB behind ClickHouse's HTTP interface). The
// migrations, inserts with deduplication tokens, query parameters, gzip both ways and errors with their
// ClickHouse code and type, then a whole Wren on it: captured events and persons read back through the API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readdir } from 'node:fs/promises'
import { createClient } from '@clickhouse/client'
import { insertRows, migrate, openServerClickHouse, queryRows, type ClickHouseClient } from '../../services/platform/clickhouse'
import { startClickHouseFixture, type ClickHouseFixture } from '../support/clickhouse-http'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'

describe('Wren over ClickHouse HTTP (the chDB test fixture)', () => {
  let fixture: ClickHouseFixture
  let client: ClickHouseClient
  const server = (database: string) => ({ url: fixture.url, username: fixture.user, password: fixture.password, database, cluster: null })

  beforeAll(async () => {
    fixture = await startClickHouseFixture({ user: 'wren', password: 'fixture secret' })
    client = await openServerClickHouse(server('wren'))
  })
  afterAll(async () => {
    await client?.close()
    await fixture?.stop()
  })

  it('creates its database and applies every migration once', async () => {
    const files = (await readdir(new URL('../../schemas/clickhouse/', import.meta.url))).filter((f) => f.endsWith('.sql')).sort()
    expect(await migrate(client)).toEqual(files)
    expect(await migrate(client)).toEqual([])
    const tables = await queryRows<{ name: string }>(client, 'SELECT name FROM system.tables WHERE database = currentDatabase()')
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['events', 'person', 'person_distinct_id', 'schema_migrations']))
  })

  it('binds query parameters as the server parses them', async () => {
    const text = "it's a \\ back\tslash\nand a newline"
    const [row] = await queryRows<Record<string, unknown>>(
      client,
      'SELECT {text:String} AS text, {list:Array(String)} AS list, {big:UInt64} AS big, {none:Nullable(String)} AS none, toString({at:DateTime64(3)}) AS at',
      {
        text,
        list: ["o'clock", 'b'],
        big: 9007199254740991,
        none: null,
        at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)),
      },
    )
    expect(row).toEqual({ text, list: ["o'clock", 'b'], big: 9007199254740991, none: null, at: '2026-01-02 03:04:05.678' })
  })

  it('stores an insert replayed with the same deduplication token once', async () => {
    await client.command({
      query:
        'CREATE TABLE replayed (id UInt32, text String) ENGINE = MergeTree ORDER BY id SETTINGS non_replicated_deduplication_window = 100',
    })
    const rows = Array.from({ length: 10 }, (_, id) => ({ id, text: String(id).repeat(300) }))
    await insertRows(client, 'replayed', rows, 'batch-1', 1_000)
    await insertRows(client, 'replayed', rows, 'batch-1', 1_000)
    await insertRows(client, 'replayed', rows.slice(0, 2), 'batch-2')
    const [stored] = await queryRows<{ rows: number; ids: number }>(client, 'SELECT count() AS rows, uniqExact(id) AS ids FROM replayed')
    expect(stored).toEqual({ rows: 12, ids: 10 })
  })

  it('takes gzip request bodies and answers in gzip when the client asks, plain when it does not', async () => {
    const make = (on: boolean) =>
      createClient({
        url: fixture.url,
        username: fixture.user,
        password: fixture.password,
        database: 'wren',
        compression: { request: on, response: on },
      })
    const [gzip, plain] = [make(true), make(false)]
    try {
      await gzip.command({ query: 'CREATE TABLE zipped (id UInt32, text String) ENGINE = MergeTree ORDER BY id' })
      await gzip.insert({
        table: 'zipped',
        values: Array.from({ length: 500 }, (_, id) => ({ id, text: 'x'.repeat(id) })),
        format: 'JSONEachRow',
      })
      for (const [c, encoding] of [
        [gzip, 'gzip'],
        [plain, undefined],
      ] as const) {
        const result = await c.query({
          query: 'SELECT count() AS n, sum(length(text)) AS chars FROM zipped',
          format: 'JSONEachRow',
          clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
        })
        expect(result.response_headers['content-encoding']).toBe(encoding)
        expect(await result.json()).toEqual([{ n: 500, chars: (499 * 500) / 2 }])
      }
    } finally {
      await Promise.all([gzip.close(), plain.close()])
    }
  })

  it('reports errors with their ClickHouse code and type', async () => {
    await expect(queryRows(client, "SELECT match('x', {pattern:String})", { pattern: '(' })).rejects.toMatchObject({
      code: '427',
      type: 'CANNOT_COMPILE_REGEXP',
    })
    await expect(queryRows(client, 'SELECT * FROM no_such_table')).rejects.toMatchObject({ code: '60', type: 'UNKNOWN_TABLE' })
    await expect(queryRows(client, 'SELEC 1')).rejects.toMatchObject({ code: '62', type: 'SYNTAX_ERROR' })
    await expect(openServerClickHouse({ ...server('wren'), password: 'wrong' })).rejects.toMatchObject({
      code: '516',
      type: 'AUTHENTICATION_FAILED',
    })
  })

  describe('a whole Wren on CLICKHOUSE_URL', () => {
    let t: TestWren
    let call: ReturnType<typeof api>
    beforeAll(async () => {
      t = await startWren({
        ...fixture.env,
        CLICKHOUSE_DATABASE: 'wren_app',
      })
      call = api(t)
    })
    afterAll(async () => t?.close())

    it('stores captured events and persons and reads them back through the API', async () => {
      await captureBatch(t, [
        {
          event: 'signed_up',
          distinct_id: 'ada',
          properties: { plan: "pro's", $set: { email: 'ada@example.com' } },
          timestamp: '2026-01-02T03:04:05.678Z',
        },
        { event: 'signed_up', distinct_id: 'bob', properties: { plan: 'free', $set: { email: 'bob@example.org' } } },
        { event: '$identify', distinct_id: 'ada-device', properties: { $anon_distinct_id: 'ada-anon' } },
      ])
      await drained(t.wren)
      const events = await call(
        'GET',
        `/api/projects/${t.projectId}/events/?event=signed_up&properties=${encodeURIComponent(JSON.stringify([{ key: 'plan', value: "pro's" }]))}`,
      )
      expect(events.status).toBe(200)
      expect(events.body.results).toHaveLength(1)
      expect(events.body.results[0]).toMatchObject({ distinct_id: 'ada', timestamp: expect.stringMatching(/^2026-01-02T03:04:05\.678/) })
      const persons = await call('GET', `/api/environments/${t.projectId}/persons/?email=ada@example.com`)
      expect(persons.body.results).toHaveLength(1)
      expect(persons.body.results[0].distinct_ids).toEqual(['ada'])
    })

    it('answers a regex ClickHouse cannot compile with 400, as on chDB', async () => {
      const filter = encodeURIComponent(JSON.stringify([{ key: 'email', operator: 'regex', value: '(' }]))
      const res = await call('GET', `/api/environments/${t.projectId}/persons/?properties=${filter}`)
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ type: 'validation_error' })
    })
  })
})
