// Large dead letters (issue 20): listing reads only a preview of each payload, never the payloads, so a
// page of letters of megabytes each answers a small page; a replay reads payloads a page at a time, and
// still appends every letter once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { migrate, openEmbeddedClickHouse, type ClickHouseClient } from '../../services/platform/clickhouse'
import { encodeIngest } from '../../services/platform/log/contract'
import { TOPICS, type Log, type LogBatch } from '../../services/platform/log/log'
import { systemClock } from '../../services/platform/clock'
import { DeadLetterStore, payloadPreview } from '../../services/dead-letters/store'
import { serializeDeadLetter } from '../../services/dead-letters/routes'

const LARGE = 20
const LARGE_BYTES = 2 << 20

/** The client, counting the characters of JSON each query hands back to the process. */
function counting(client: ClickHouseClient): { client: ClickHouseClient; reads: number[] } {
  const reads: number[] = []
  const query = (async (params: Parameters<ClickHouseClient['query']>[0]) => {
    const result = await client.query(params)
    const json = result.json.bind(result)
    Object.assign(result, {
      json: async () => {
        const rows = await json()
        reads.push(JSON.stringify(rows).length)
        return rows
      },
    })
    return result
  }) as ClickHouseClient['query']
  const wrapped = new Proxy(client, {
    get: (target, prop) => {
      if (prop === 'query') return query
      const value = Reflect.get(target, prop, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  return { client: wrapped, reads }
}

function ingestPayload(uuid: string, blob: string): Buffer {
  const at = new Date().toISOString()
  return encodeIngest({
    kind: 'event',
    event: { teamId: 1, uuid, event: 'big', distinctId: 'user-1', properties: { blob }, timestamp: at, now: at, elementsChain: '' },
  })
}

describe('large dead letters', () => {
  let dataDir = ''
  let raw: ClickHouseClient
  let counted: ReturnType<typeof counting>
  let store: DeadLetterStore
  const uuids = Array.from({ length: LARGE + 1 }, () => randomUUID())
  const payloads = uuids.map((uuid, i) => ingestPayload(uuid, i === LARGE ? 'small' : 'x'.repeat(LARGE_BYTES)))

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wren-large-dead-letters-'))
    raw = await openEmbeddedClickHouse(dataDir)
    await migrate(raw)
    counted = counting(raw)
    store = new DeadLetterStore(counted.client, systemClock)
    const recorder = store.recorder('ingestion')
    // One batch a letter, as the runner records them (each under its own deduplication token).
    for (const [offset, payload] of payloads.entries()) {
      const batch: LogBatch = {
        topic: TOPICS.ingest,
        partition: 0,
        records: [],
        firstOffset: offset,
        lastOffset: offset,
        redelivered: false,
      }
      await recorder.record(batch, [{ offset, error: 'refused', payload, teamId: 1 }])
    }
  }, 120_000)
  afterAll(async () => {
    await raw?.close()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('lists a page without reading the payloads: a small answer, previews as before for small letters', async () => {
    counted.reads.length = 0
    const { count, results } = await store.list({ limit: 100, offset: 0 })
    const page = results.map(serializeDeadLetter)
    expect(count).toBe(LARGE + 1)
    expect(page).toHaveLength(LARGE + 1)
    // 40 MB of payloads; the page and what it read are a few hundred kilobytes at most.
    expect(JSON.stringify(page).length).toBeLessThan(100_000)
    expect(counted.reads.reduce((a, b) => a + b, 0)).toBeLessThan(1_000_000)

    const byId = new Map(page.map((l) => [l.id as string, l]))
    expect(byId.get(`wren_ingest/0/${LARGE}`)).toMatchObject({
      size: payloads[LARGE].length,
      payload_preview: payloadPreview(TOPICS.ingest, payloads[LARGE]),
    })
    for (let offset = 0; offset < LARGE; offset++) {
      const letter = byId.get(`wren_ingest/0/${offset}`)!
      expect(letter).toMatchObject({ size: payloads[offset].length, team_id: 1, error: 'refused', replayed_at: null })
      expect(letter.payload_preview).toContain(uuids[offset])
      expect((letter.payload_preview as string).length).toBeLessThanOrEqual(1_001)
    }
  })

  it('replays every letter once, reading the payloads a page at a time', async () => {
    const appended: Array<{ topic: string; key: string; value: Buffer }> = []
    const log = {
      append: async (topic: string, messages: Array<{ key: string; value: Buffer }>) => {
        appended.push(...messages.map((m) => ({ topic, ...m })))
      },
    } as unknown as Log
    counted.reads.length = 0
    const { replayed } = await store.replay(log, { all: true })
    expect(replayed.sort()).toEqual(payloads.map((_, offset) => `wren_ingest/0/${offset}`).sort())
    expect(appended).toHaveLength(payloads.length)
    for (const payload of payloads) {
      expect(appended.filter((m) => m.value.equals(payload))).toHaveLength(1)
      expect(appended.find((m) => m.value.equals(payload))).toMatchObject({ topic: TOPICS.ingest, key: '1' })
    }
    // No single read holds more than a page of payloads (their base64), far below the 40 MB of them all.
    expect(Math.max(...counted.reads)).toBeLessThan(16 << 20)
    expect(await store.replay(log, { all: true })).toEqual({ replayed: [] })
    expect(appended).toHaveLength(payloads.length)
    const { results } = await store.list({ limit: 100, offset: 0 })
    expect(results.every((l) => l.replayedAt !== null)).toBe(true)
  })
})
