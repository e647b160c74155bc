// Inserts on real chDB: rows wider than one insert's budget are written as several inserts, each with
// its own deduplication token, so writing the same rows again (a replay) stores them once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { encodeRows, insertRows, openEmbeddedClickHouse, queryRows, type ClickHouseClient } from './index'

describe('insertRows', () => {
  let dir: string
  let client: ClickHouseClient
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wren-insert-'))
    client = await openEmbeddedClickHouse(dir)
    await client.command({
      query: 'CREATE TABLE wide (id UInt32, text String) ENGINE = MergeTree ORDER BY id SETTINGS non_replicated_deduplication_window = 100',
    })
  })
  afterAll(async () => {
    await client?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('splits rows past the size budget into several inserts, and a replay of the same rows stores them once', async () => {
    const rows = Array.from({ length: 10 }, (_, id) => ({ id, text: String(id).repeat(300) }))
    expect(encodeRows(rows, 1_000).length).toBeGreaterThanOrEqual(4)
    await insertRows(client, 'wide', rows, 'wide:batch-1', 1_000)
    await insertRows(client, 'wide', rows, 'wide:batch-1', 1_000)
    const [stored] = await queryRows<{ rows: number; ids: number }>(client, 'SELECT count() AS rows, uniqExact(id) AS ids FROM wide')
    expect({ rows: Number(stored.rows), ids: Number(stored.ids) }).toEqual({ rows: 10, ids: 10 })
  })

  it('an insert without a token after one with a token is stored (chDB keeps settings between calls)', async () => {
    await insertRows(client, 'wide', [{ id: 100, text: 'tokened' }], 'wide:batch-2')
    await insertRows(client, 'wide', [{ id: 101, text: 'plain' }])
    const [stored] = await queryRows<{ rows: number }>(client, 'SELECT count() AS rows FROM wide WHERE id >= 100')
    expect(Number(stored.rows)).toBe(2)
  })

  it('rows of different keys: a key a row lacks gets the column default, as an omitted JSON key does', async () => {
    await client.command({
      query: `CREATE TABLE defaults (id UInt32, label String DEFAULT concat('row-', toString(id)), tags Array(String)) ENGINE = MergeTree ORDER BY id`,
    })
    await insertRows(client, 'defaults', [{ id: 1, label: 'one', tags: ['a', 'b'] }, { id: 2 }, { tags: ['c'], id: 3, label: undefined }])
    expect(await queryRows(client, 'SELECT id, label, tags FROM defaults ORDER BY id')).toEqual([
      { id: 1, label: 'one', tags: ['a', 'b'] },
      { id: 2, label: 'row-2', tags: [] },
      { id: 3, label: 'row-3', tags: ['c'] },
    ])
  })

  it('keeps rows in order, each chunk within the budget unless a single row is bigger', () => {
    const rows = [5, 5, 5, 50, 5].map((n, id) => ({ id, text: 'x'.repeat(n) }))
    const chunks = encodeRows(rows, 60)
    const ids = (chunk: string) =>
      chunk
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: number }).id)
    expect(chunks.map(ids)).toEqual([[0, 1], [2], [3], [4]])
    expect(chunks.every((c) => c.length <= 60 || ids(c).length === 1)).toBe(true)
    expect(encodeRows(rows, 1_000).map(ids)).toEqual([[0, 1, 2, 3, 4]])
  })

  it('an object or array for a String column is stored as its JSON text, exactly as JSON.stringify writes it', async () => {
    await client.command({ query: 'CREATE TABLE texts (id UInt32, doc String, tags Array(String)) ENGINE = MergeTree ORDER BY id' })
    const doc = { a: 1, b: 'x\n"é" 🦜 \\', c: [1, { d: null }], e: {} }
    await insertRows(client, 'texts', [
      { id: 1, doc, tags: ['t'] },
      { id: 2, doc: JSON.stringify(doc), tags: [] },
      { id: 3, doc: [1, 'two'], tags: [] },
    ])
    expect(await queryRows(client, 'SELECT id, doc, tags FROM texts ORDER BY id')).toEqual([
      { id: 1, doc: JSON.stringify(doc), tags: ['t'] },
      { id: 2, doc: JSON.stringify(doc), tags: [] },
      { id: 3, doc: '[1,"two"]', tags: [] },
    ])
  })
})

describe('queryRows', () => {
  it('reads back many rows, strings with newlines, quotes and non-ASCII text as written', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'wren-query-'))
    const client = await openEmbeddedClickHouse(dir)
    try {
      const rows = await queryRows<{ n: number; s: string }>(
        client,
        `SELECT number AS n, if(number = 7, {s:String}, toString(number)) AS s FROM numbers(50000) ORDER BY n`,
        { s: 'a\nb "c" \\ é 🦜' },
      )
      expect(rows.length).toBe(50_000)
      expect(rows[7]).toEqual({ n: 7, s: 'a\nb "c" \\ é 🦜' })
      expect(rows[49_999]).toEqual({ n: 49_999, s: '49999' })
    } finally {
      await client.close()
      await rm(dir, { recursive: true, force: true })
    }
  })
})
