import { spawn } from 'node:child_process'
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openEmbeddedLog, type EmbeddedLog } from './embedded-log'
import type { LogBatch, LogMessage } from '../log'

let dir: string
const opened: EmbeddedLog[] = []

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wren-log-'))
})

afterEach(async () => {
  await Promise.all(opened.splice(0).map((log) => log.close()))
  await rm(dir, { recursive: true, force: true })
})

interface Warning {
  obj: Record<string, unknown>
  msg: string
}

async function open(segmentBytes?: number, warnings: Warning[] = []): Promise<EmbeddedLog> {
  const logger = { warn: (obj: object, msg: string) => void warnings.push({ obj: obj as Record<string, unknown>, msg }) }
  const log = await openEmbeddedLog({ dir, segmentBytes, logger })
  opened.push(log)
  return log
}

const msgs = (from: number, n: number, key = 'k'): LogMessage[] =>
  Array.from({ length: n }, (_, i) => ({ key, value: Buffer.from(`v${from + i}`) }))

const values = (batches: LogBatch[]) => batches.flatMap((b) => b.records.map((r) => r.value.toString()))

/** Consumes with a fresh group until `n` records arrived, then stops. */
async function collect(log: EmbeddedLog, n: number, opts: { topic?: string; group?: string; maxBatchRecords?: number } = {}) {
  const batches: LogBatch[] = []
  let seen = 0
  let done!: () => void
  const finished = new Promise<void>((r) => (done = r))
  const sub = log.subscribe({
    topic: opts.topic ?? 't',
    group: opts.group ?? `reader${Math.random().toString(36).slice(2)}`,
    maxBatchRecords: opts.maxBatchRecords ?? 1000,
    maxWaitMs: 0,
    handler: async (batch) => {
      batches.push(batch)
      seen += batch.records.length
      if (seen >= n) done()
    },
  })
  if (n > 0) await finished
  await sub.stop()
  return batches
}

function deferred<T = void>() {
  let resolve!: (v: T) => void
  let reject!: (e: unknown) => void
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)))
  return { promise, resolve, reject }
}

const segments = async (topic = 't') => (await readdir(join(dir, topic))).filter((f) => f.endsWith('.seg')).sort()

describe('embedded log: appending', () => {
  it('appends and reads back in order, with offsets, keys and stats', async () => {
    const log = await open()
    await log.append('t', msgs(0, 3, 'a'))
    await log.append('t', msgs(3, 2, 'b'))
    const batches = await collect(log, 5)
    const records = batches.flatMap((b) => b.records)
    expect(records.map((r) => [r.offset, r.partition, r.key, r.value.toString()])).toEqual([
      [0, 0, 'a', 'v0'],
      [1, 0, 'a', 'v1'],
      [2, 0, 'a', 'v2'],
      [3, 0, 'b', 'v3'],
      [4, 0, 'b', 'v4'],
    ])
    expect((await log.stats('t')).endOffset).toBe(5)
    expect(await log.stats('nope')).toEqual({ topic: 'nope', endOffset: 0, committed: {} })
    expect(await segments()).toEqual(['00000000000000000000.seg'])
  })

  it('group-commits concurrent appends into few fsyncs, each call contiguous', async () => {
    const log = await open()
    await log.append('t', msgs(0, 1)) // topic exists, so the burst below is not waiting on its creation
    const before = log.dataSyncs()
    await Promise.all(Array.from({ length: 200 }, (_, i) => log.append('t', msgs(i * 10, 10, `c${i}`))))
    expect(log.dataSyncs() - before).toBeLessThan(10)
    const records = (await collect(log, 2001)).flatMap((b) => b.records).slice(1)
    for (let i = 0; i < 200; i++) {
      const mine = records.filter((r) => r.key === `c${i}`)
      expect(mine.map((r) => r.value.toString())).toEqual(msgs(i * 10, 10).map((m) => m.value.toString()))
      expect(mine[9].offset - mine[0].offset).toBe(9)
    }
  })

  it('is all or nothing per call', async () => {
    const log = await open()
    await log.append('t', msgs(0, 2))
    const bad = [...msgs(2, 3), { key: 'k', value: 'not a buffer' as unknown as Buffer }]
    await expect(log.append('t', bad)).rejects.toThrow(/Buffer/)
    await expect(log.append('t', [{ key: 'x'.repeat(70_000), value: Buffer.alloc(1) }])).rejects.toThrow(/key/)
    await expect(log.append('bad/topic', msgs(0, 1))).rejects.toThrow(/topic/)
    expect((await log.stats('t')).endOffset).toBe(2)
    await log.append('t', msgs(2, 1))
    expect(values(await collect(log, 3))).toEqual(['v0', 'v1', 'v2'])
  })

  it('rolls segments and reads across them, also after reopening', async () => {
    let log = await open(200)
    // A group that stays at 0 keeps retention from deleting what the readers below consume.
    await log.subscribe({ topic: 't', group: 'keeper', maxBatchRecords: 1, maxWaitMs: 0, handler: async () => {} }).stop()
    for (let i = 0; i < 40; i++) await log.append('t', msgs(i * 3, 3))
    const files = await segments()
    expect(files.length).toBeGreaterThan(5)
    expect(files.map((f) => Number(f.slice(0, 20))).every((base, i, all) => i === 0 || base > all[i - 1])).toBe(true)
    for (const f of files.slice(0, -1)) expect((await stat(join(dir, 't', f))).size).toBeLessThanOrEqual(200)
    const expected = msgs(0, 120).map((m) => m.value.toString())
    expect(values(await collect(log, 120, { maxBatchRecords: 7 }))).toEqual(expected)
    await log.close()
    log = await open(200)
    expect(values(await collect(log, 120, { maxBatchRecords: 50 }))).toEqual(expected)
    await collect(log, 50, { group: 'mid', maxBatchRecords: 50 })
    await log.close()
    // After reopening, a group resumes in the middle of an older (lazily indexed) segment.
    log = await open(200)
    const rest = await collect(log, 70, { group: 'mid' })
    expect(rest[0].firstOffset).toBe(50)
    expect(values(rest)).toEqual(expected.slice(50))
  })

  it('rejects appends and subscriptions after close', async () => {
    const log = await open()
    await log.append('t', msgs(0, 1))
    await log.close()
    await expect(log.append('t', msgs(1, 1))).rejects.toThrow(/closed/)
    expect(() => log.subscribe({ topic: 't', group: 'g', maxBatchRecords: 1, maxWaitMs: 0, handler: async () => {} })).toThrow(/closed/)
  })

  it('flushes appends issued just before close', async () => {
    const log = await open()
    const appends = Array.from({ length: 20 }, (_, i) => log.append('t', msgs(i, 1)))
    await log.close()
    await Promise.all(appends)
    expect((await (await open()).stats('t')).endOffset).toBe(20)
  })
})

describe('embedded log: recovery', () => {
  it('keeps records and committed offsets across close and reopen', async () => {
    let log = await open()
    await log.append('t', msgs(0, 10))
    const first = await collect(log, 4, { group: 'g', maxBatchRecords: 4 })
    expect(first).toHaveLength(1)
    await log.close()
    await mkdir(join(dir, 'not-a-topic'))
    log = await open()
    expect(await log.stats('t')).toMatchObject({ topic: 't', endOffset: 10, committed: { g: 4 } })
    expect(await readdir(join(dir, 'not-a-topic'))).toEqual([])
    const rest = await collect(log, 6, { group: 'g' })
    expect(rest[0]).toMatchObject({ firstOffset: 4, lastOffset: 9, redelivered: false })
    expect(JSON.parse(await readFile(join(dir, 't', 'consumers', 'g.json'), 'utf8'))).toEqual({ committed: 10 })
  })

  for (const damage of ['garbage', 'truncated', 'bad crc'] as const) {
    it(`truncates a torn tail (${damage}) and keeps appending`, async () => {
      let log = await open()
      await log.append('t', msgs(0, 5))
      await log.append('t', msgs(5, 1))
      await log.close()
      const file = join(dir, 't', '00000000000000000000.seg')
      const size = (await stat(file)).size
      if (damage === 'garbage') await appendFile(file, Buffer.from([0, 0, 1, 0, 9, 9, 9, 9, 1, 2, 3]))
      if (damage === 'truncated') await truncate(file, size - 3)
      if (damage === 'bad crc') {
        const bytes = await readFile(file)
        bytes[bytes.length - 1] ^= 0xff
        await writeFile(file, bytes)
      }
      const warnings: Warning[] = []
      log = await open(undefined, warnings)
      const keep = damage === 'garbage' ? 6 : 5
      expect((await log.stats('t')).endOffset).toBe(keep)
      expect(warnings).toHaveLength(1)
      expect(warnings[0].obj.droppedBytes).toBe(damage === 'garbage' ? 11 : damage === 'truncated' ? 10 : 13)
      await log.append('t', msgs(100, 2))
      expect(values(await collect(log, keep + 2))).toEqual([...msgs(0, keep), ...msgs(100, 2)].map((m) => m.value.toString()))
      await log.close()
      expect(values(await collect(await open(), keep + 2))).toHaveLength(keep + 2)
    })
  }

  it('reports a corrupt older segment to onError instead of skipping it', async () => {
    let log = await open(200)
    await log.subscribe({ topic: 't', group: 'keeper', maxBatchRecords: 1, maxWaitMs: 0, handler: async () => {} }).stop()
    for (let i = 0; i < 20; i++) await log.append('t', msgs(i * 3, 3))
    await log.close()
    const file = join(dir, 't', (await segments())[0])
    const bytes = await readFile(file)
    bytes[bytes.length - 1] ^= 0xff
    await writeFile(file, bytes)
    log = await open(200)
    const failed = deferred<unknown>()
    const sub = log.subscribe({
      topic: 't',
      group: 'g',
      maxBatchRecords: 10,
      maxWaitMs: 0,
      handler: async () => {},
      onError: (err) => failed.resolve(err),
    })
    expect(String(await failed.promise)).toMatch(/corrupt/)
    await sub.stop()
    expect((await log.stats('t')).committed.g).toBe(0)
  })

  it('redelivers exactly the pending range after a crash, even when more records exist', async () => {
    const crashed = await open()
    await crashed.append('t', msgs(0, 10))
    const started = deferred<LogBatch>()
    const never = deferred()
    crashed.subscribe({
      topic: 't',
      group: 'g',
      maxBatchRecords: 4,
      maxWaitMs: 0,
      handler: (batch) => (started.resolve(batch), never.promise),
    })
    expect(await started.promise).toMatchObject({ firstOffset: 0, lastOffset: 3, redelivered: false })
    await crashed.append('t', msgs(10, 10))
    expect(JSON.parse(await readFile(join(dir, 't', 'consumers', 'g.json'), 'utf8'))).toEqual({
      committed: 0,
      pending: { first: 0, last: 3 },
    })

    // A second instance on the same directory plays the restarted process.
    const restarted = await openEmbeddedLog({ dir })
    const batches = await collect(restarted, 20, { group: 'g', maxBatchRecords: 100 })
    await restarted.close()
    expect(batches.map((b) => [b.firstOffset, b.lastOffset, b.redelivered])).toEqual([
      [0, 3, true],
      [4, 19, false],
    ])
    expect(values(batches)).toEqual(msgs(0, 20).map((m) => m.value.toString()))
    // Let the "dead" instance go without committing: stop first, then fail its handler.
    const closing = crashed.close()
    never.reject(new Error('gone'))
    await closing
  })

  it('survives SIGKILL mid-append: every acknowledged record is there, appends continue', async () => {
    const script = join(import.meta.dirname, 'testdata', 'append-until-killed.ts')
    const child = spawn(process.execPath, ['--import', 'tsx', script, dir, '8'], { stdio: ['ignore', 'pipe', 'inherit'] })
    const acked = new Map<number, number>()
    let lines = 0
    let buffered = ''
    await new Promise<void>((resolve, reject) => {
      child.on('error', reject)
      child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`child exited ${code}`))))
      child.stdout!.on('data', (chunk: Buffer) => {
        buffered += chunk.toString()
        const parts = buffered.split('\n')
        buffered = parts.pop()!
        for (const line of parts) {
          const [id, seq] = line.split(' ').map(Number)
          acked.set(id, seq)
          if (++lines === 3000) child.kill('SIGKILL')
        }
      })
    })
    const log = await open()
    const end = (await log.stats('t')).endOffset
    expect(end).toBeGreaterThanOrEqual(2 * lines)
    const records = (await collect(log, end)).flatMap((b) => b.records)
    // Each appender waited for its ack before the next append: its records are its seqs in order, in pairs.
    const perAppender = new Map<number, number[]>()
    for (const r of records) {
      const [id, seq] = r.value.toString().split(':').map(Number)
      perAppender.set(id, [...(perAppender.get(id) ?? []), seq])
    }
    for (const [id, lastAcked] of acked) {
      const seqs = perAppender.get(id)!
      expect(seqs.length % 2).toBe(0)
      expect(seqs.length / 2).toBeGreaterThan(lastAcked)
      seqs.forEach((seq, i) => expect(seq).toBe(Math.floor(i / 2)))
    }
    await log.append('t', msgs(0, 1))
    expect((await log.stats('t')).endOffset).toBe(end + 1)
  }, 20_000)
})

describe('embedded log: consuming', () => {
  it('delivers the same batch again after the handler throws', async () => {
    const log = await open()
    await log.append('t', msgs(0, 5))
    const calls: LogBatch[] = []
    const errors: unknown[] = []
    const done = deferred()
    const sub = log.subscribe({
      topic: 't',
      group: 'g',
      maxBatchRecords: 3,
      maxWaitMs: 0,
      onError: (err, batch) => errors.push([(err as Error).message, batch.firstOffset, batch.lastOffset]),
      handler: async (batch) => {
        calls.push(batch)
        if (calls.length <= 2) throw new Error(`fail ${calls.length}`)
        if (batch.lastOffset === 4) done.resolve()
      },
    })
    await done.promise
    await sub.stop()
    expect(calls.map((b) => [b.firstOffset, b.lastOffset, b.redelivered])).toEqual([
      [0, 2, false],
      [0, 2, true],
      [0, 2, true],
      [3, 4, false],
    ])
    expect(calls[2].records).toEqual(calls[0].records)
    expect(errors).toEqual([
      ['fail 1', 0, 2],
      ['fail 2', 0, 2],
    ])
    expect((await log.stats('t')).committed).toEqual({ g: 5 })
  })

  it('tells the handler of the next whole batch while it runs, then hands out exactly that one', async () => {
    const log = await open()
    await log.append('t', msgs(0, 10))
    const calls: LogBatch[] = []
    const heard: Array<[number, number, boolean]> = []
    const told = deferred()
    const offsets: unknown[] = []
    const done = deferred()
    const sub = log.subscribe({
      topic: 't',
      group: 'g',
      maxBatchRecords: 4,
      maxWaitMs: 0,
      lookahead: (next) => {
        heard.push([next.firstOffset, next.lastOffset, next.redelivered])
        told.resolve()
      },
      handler: async (batch) => {
        calls.push(batch)
        // The first attempt hears of the next batch; it fails, and its retry (redelivered) hears nothing.
        if (calls.length === 1) {
          await told.promise
          throw new Error('fail once')
        }
        offsets.push(JSON.parse(await readFile(join(dir, 't', 'consumers', 'g.json'), 'utf8')))
        if (batch.lastOffset === 9) done.resolve()
      },
      onError: () => {},
    })
    await done.promise
    await sub.stop()
    // [8, 9] is not a whole batch (it would wait for maxWaitMs): no lookahead of it.
    expect(heard).toEqual([[4, 7, false]])
    expect(calls.map((b) => [b.firstOffset, b.lastOffset, b.redelivered])).toEqual([
      [0, 3, false],
      [0, 3, true],
      [4, 7, false],
      [8, 9, false],
    ])
    expect(values(calls.slice(1))).toEqual(msgs(0, 10).map((m) => m.value.toString()))
    // Each batch is pending while its handler runs; the batch read ahead is marked pending as the one before is committed.
    expect(offsets).toEqual([
      { committed: 0, pending: { first: 0, last: 3 } },
      { committed: 4, pending: { first: 4, last: 7 } },
      { committed: 8, pending: { first: 8, last: 9 } },
    ])
    expect((await log.stats('t')).committed).toEqual({ g: 10 })
  })

  it('logs a handler that keeps failing once (then once a minute with a count), and its recovery', async () => {
    const warnings: Warning[] = []
    const log = await open(undefined, warnings)
    await log.append('t', msgs(0, 2))
    let calls = 0
    const done = deferred()
    const sub = log.subscribe({
      topic: 't',
      group: 'g',
      maxBatchRecords: 10,
      maxWaitMs: 0,
      handler: async () => {
        // Four failures take 100 + 200 + 400 + 800 ms of backoff.
        if (++calls <= 4) throw new Error(`clickhouse refused the batch (${calls})`)
        done.resolve()
      },
    })
    await done.promise
    await sub.stop()
    const failures = warnings.filter((w) => w.msg.startsWith('embedded log: consumer error'))
    expect(failures).toHaveLength(2)
    expect((failures[0].obj.err as Error).message).toBe('clickhouse refused the batch (1)')
    expect(failures[1].msg).toContain('recovered after 4 failures')
  })

  it('batches by size without waiting for maxWaitMs', async () => {
    const log = await open()
    await log.append('t', msgs(0, 25))
    const batches: LogBatch[] = []
    const third = deferred()
    const sub = log.subscribe({
      topic: 't',
      group: 'g',
      maxBatchRecords: 10,
      maxWaitMs: 600_000,
      handler: async (batch) => void (batches.push(batch) === 3 && third.resolve()),
    })
    await log.append('t', msgs(25, 5))
    await third.promise
    await sub.stop() // also checks that stop() ends the 10-minute wait for a partial batch
    expect(batches.map((b) => [b.firstOffset, b.lastOffset])).toEqual([
      [0, 9],
      [10, 19],
      [20, 29],
    ])
  })

  it('ends a batch before the record that would pass maxBatchBytes, a larger record alone, a redelivery as it was', async () => {
    const log = await open()
    // Keys and values of 10 bytes each ('k' and 9 bytes), then one of 40 bytes, then 10-byte ones again.
    const sized = (n: number, bytes: number) => Array.from({ length: n }, () => ({ key: 'k', value: Buffer.alloc(bytes - 1, 'x') }))
    await log.append('t', [...sized(7, 10), ...sized(1, 40), ...sized(4, 10)])
    const batches: LogBatch[] = []
    const all = deferred()
    const sub = log.subscribe({
      topic: 't',
      group: 'g',
      maxBatchRecords: 100,
      maxBatchBytes: 25,
      maxWaitMs: 0,
      handler: async (batch) => {
        batches.push(batch)
        if (batch.lastOffset === 11) all.resolve()
      },
    })
    await all.promise
    await sub.stop()
    expect(batches.map((b) => [b.firstOffset, b.lastOffset])).toEqual([
      [0, 1],
      [2, 3],
      [4, 5],
      [6, 6],
      [7, 7],
      [8, 9],
      [10, 11],
    ])

    // A range handed out before a crash is handed out whole, even if the bound is lower now.
    const crashed = await open(undefined, [])
    await crashed.append('u', sized(4, 10))
    const started = deferred<LogBatch>()
    const never = deferred()
    crashed.subscribe({ topic: 'u', group: 'g', maxBatchRecords: 100, maxWaitMs: 0, handler: (b) => (started.resolve(b), never.promise) })
    expect(await started.promise).toMatchObject({ firstOffset: 0, lastOffset: 3 })
    const restarted = await openEmbeddedLog({ dir })
    const redelivered = deferred<LogBatch>()
    const sub2 = restarted.subscribe({
      topic: 'u',
      group: 'g',
      maxBatchRecords: 100,
      maxBatchBytes: 10,
      maxWaitMs: 0,
      handler: async (b) => redelivered.resolve(b),
    })
    expect(await redelivered.promise).toMatchObject({ firstOffset: 0, lastOffset: 3, redelivered: true })
    await sub2.stop()
    await restarted.close()
    const closing = crashed.close()
    never.reject(new Error('gone'))
    await closing
  })

  it('delivers a partial batch once maxWaitMs has passed', async () => {
    const log = await open()
    const batches: LogBatch[] = []
    const got = [deferred(), deferred()]
    const sub = log.subscribe({
      topic: 't',
      group: 'g',
      maxBatchRecords: 1000,
      maxWaitMs: 20,
      handler: async (batch) => void got[batches.push(batch) - 1]?.resolve(),
    })
    await log.append('t', msgs(0, 3))
    await got[0].promise
    await log.append('t', msgs(3, 2))
    await got[1].promise
    await sub.stop()
    expect(values(batches)).toEqual(msgs(0, 5).map((m) => m.value.toString()))
    expect(batches.at(-1)!.lastOffset).toBe(4)
  })

  it('stop() waits for the batch in flight and its commit, then delivers nothing more', async () => {
    const log = await open()
    await log.append('t', msgs(0, 3))
    const started = deferred()
    const release = deferred()
    let calls = 0
    const sub = log.subscribe({
      topic: 't',
      group: 'g',
      maxBatchRecords: 10,
      maxWaitMs: 0,
      handler: async () => {
        calls++
        started.resolve()
        await release.promise
      },
    })
    await started.promise
    let stopped = false
    const stopping = sub.stop().then(() => (stopped = true))
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r))
    expect(stopped).toBe(false)
    release.resolve()
    await stopping
    expect((await log.stats('t')).committed).toEqual({ g: 3 })
    await log.append('t', msgs(3, 3))
    await new Promise((r) => setTimeout(r, 50))
    expect(calls).toBe(1)
    // The group can subscribe again once stopped, and resumes after the commit.
    const rest = await collect(log, 3, { group: 'g' })
    expect(rest[0].firstOffset).toBe(3)
  })

  it('refuses a second consumer of the same group', async () => {
    const log = await open()
    const opts = { topic: 't', group: 'g', maxBatchRecords: 1, maxWaitMs: 0, handler: async () => {} }
    const sub = log.subscribe(opts)
    expect(() => log.subscribe(opts)).toThrow(/already/)
    await sub.stop()
  })

  it('deletes segments every group has consumed, never the active one', async () => {
    let log = await open(200)
    // Group "slow" registers at offset 0 (its offset file exists) but consumes nothing yet.
    await log.subscribe({ topic: 't', group: 'slow', maxBatchRecords: 1, maxWaitMs: 0, handler: async () => {} }).stop()
    for (let i = 0; i < 30; i++) await log.append('t', msgs(i * 3, 3))
    const all = await segments()
    await collect(log, 90, { group: 'fast' })
    expect(await segments()).toEqual(all)
    await collect(log, 90, { group: 'slow' })
    const left = await segments()
    expect(left).toEqual([all.at(-1)])
    expect(await log.stats('t')).toEqual({
      topic: 't',
      endOffset: 90,
      committed: { slow: 90, fast: 90 },
      committedByPartition: { slow: { 0: 90 }, fast: { 0: 90 } },
      bytes: (await stat(join(dir, 't', left[0]))).size,
    })
    await log.append('t', msgs(90, 1))
    await log.close()
    log = await open(200)
    expect((await log.stats('t')).endOffset).toBe(91)
    // A new group starts at the oldest record still kept.
    const base = Number(left[0].slice(0, 20))
    const fresh = await collect(log, 91 - base, { group: 'new' })
    expect(fresh[0].firstOffset).toBe(base)
    expect(values(fresh).at(-1)).toBe('v90')
  })

  it('keeps consumed segments for replays under a retention in bytes and in age', async () => {
    const sizes = async () => Promise.all((await segments()).map(async (f) => (await stat(join(dir, 't', f))).size))
    const reopen = async (retention: { bytes: number; ms: number }) => {
      const log = await openEmbeddedLog({ dir, segmentBytes: 200, retention })
      opened.push(log)
      return log
    }
    let log = await reopen({ bytes: 600, ms: 3_600_000 })
    for (let i = 0; i < 30; i++) await log.append('t', msgs(i * 3, 3))
    const all = await segments()
    await collect(log, 90, { group: 'g' })
    // Consumed segments stay while they total at most 600 bytes (the active one is never consumed-deleted).
    const kept = (await sizes()).slice(0, -1)
    expect(kept.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(600)
    expect(kept.reduce((a, b) => a + b, 0)).toBeGreaterThan(600 - 200)
    expect(await segments()).toEqual(all.slice(all.length - kept.length - 1))
    expect((await log.stats('t')).bytes).toBe((await sizes()).reduce((a, b) => a + b, 0))
    // A new group replays from the oldest kept record.
    const base = Number((await segments())[0].slice(0, 20))
    expect(base).toBeGreaterThan(0)
    expect((await collect(log, 90 - base, { group: 'replay' }))[0].firstOffset).toBe(base)
    await log.close()

    // Past their age, consumed segments go whatever their size.
    log = await reopen({ bytes: 1 << 30, ms: 0 })
    await log.append('t', msgs(90, 1))
    await collect(log, 1, { group: 'g' })
    expect(await segments()).toEqual([all.at(-1)])
  })
})
