// The batch runner with a stage that is neither ingestion nor recordings: a stage that only writes a range
// gets retries, isolation into dead letters and the runner's metrics, and never hears of the runner.
import { describe, expect, it } from 'vitest'
import pino from 'pino'
import type { LogBatch, LogRecord } from '../log/log'
import { Metrics } from '../metrics'
import { BatchRunner, type DeadLetter, type DeadLetterRecorder, type Stage, type Written } from './runner'

/** Messages are strings; one that starts with 'poison' fails any range that holds it; 'bad' ones are the stage's own letters. */
class StringStage implements Stage {
  readonly stored: string[] = []
  readonly writes: string[] = []
  readonly heard: number[] = []
  down: Error | null = null

  async write(range: LogBatch): Promise<Written> {
    this.writes.push(`${range.firstOffset}-${range.lastOffset}`)
    const values = range.records.map((r) => r.value.toString())
    if (values.some((v) => v.startsWith('poison'))) throw new Error('refused')
    const letters = range.records
      .filter((r) => r.value.toString() === 'bad')
      .map((r) => ({ offset: r.offset, error: 'bad', payload: r.value, teamId: null }))
    const good = values.filter((v) => v !== 'bad')
    return { letters, stored: () => this.stored.push(...good) }
  }

  async ping() {
    return this.down ? { success: false, error: this.down } : { success: true }
  }

  teamOf(payload: Buffer): number | null {
    return payload.length
  }

  async deadLettered(record: LogRecord): Promise<void> {
    this.heard.push(record.offset)
  }
}

/** Letters by offset, recorded once per range (as ClickHouse's deduplication token would). */
class MemoryRecorder implements DeadLetterRecorder {
  readonly letters = new Map<number, DeadLetter>()
  private readonly ranges = new Set<string>()

  async record(range: LogBatch, letters: DeadLetter[]): Promise<void> {
    const token = `${range.firstOffset}-${range.lastOffset}`
    if (this.ranges.has(token)) return
    this.ranges.add(token)
    for (const l of letters) this.letters.set(l.offset, l)
  }

  async offsetsIn(_topic: string, _partition: number, first: number, last: number): Promise<number[]> {
    return [...this.letters.keys()].filter((o) => o >= first && o <= last)
  }
}

function batch(values: string[], redelivered = false): LogBatch {
  const records = values.map((v, offset) => ({ key: 'k', value: Buffer.from(v), partition: 0, offset }))
  return { topic: 'wren_ingest', partition: 0, records, firstOffset: 0, lastOffset: values.length - 1, redelivered }
}

function runner(stage: Stage, deadLetters: DeadLetterRecorder, metrics = new Metrics()) {
  const options = {
    name: 'test',
    topic: 'wren_ingest',
    group: 'test',
    maxBatchRecords: 100,
    maxWaitMs: 0,
    maxRetries: 2,
    deadLetters,
    metrics: { retries: 'wren_ingestion_batch_retries_total', splits: 'wren_ingestion_batches_split_total' },
  } as const
  return { runner: new BatchRunner({} as never, stage, pino({ level: 'silent' }), metrics, options), metrics }
}

describe('batch runner', () => {
  it('retries a failing range, then splits it until the failing message is found: it is a dead letter, the rest is stored once', async () => {
    const stage = new StringStage()
    const deadLetters = new MemoryRecorder()
    const { runner: r, metrics } = runner(stage, deadLetters)
    const failing = batch(['a', 'b', 'bad', 'poison!', 'c'])
    for (let attempt = 0; attempt < 2; attempt++)
      await expect(r.handleBatch({ ...failing, redelivered: attempt > 0 })).rejects.toThrow('refused')
    await r.handleBatch({ ...failing, redelivered: true })

    expect(stage.stored).toEqual(['a', 'b', 'c'])
    expect([...deadLetters.letters.values()].map((l) => [l.offset, l.error, l.teamId])).toEqual([
      [2, 'bad', null],
      [3, 'refused', 'poison!'.length],
    ])
    expect(stage.heard).toEqual([3])
    expect(metrics.get('wren_ingestion_batch_retries_total')).toBe(2)
    expect(metrics.get('wren_ingestion_batches_split_total')).toBe(2)
    expect(metrics.get('wren_dead_letters_total')).toBe(2)
  })

  it('isolates at once a range handed out again that already has a letter (a crash in the middle of isolation)', async () => {
    const stage = new StringStage()
    const deadLetters = new MemoryRecorder()
    await deadLetters.record({ ...batch(['x']), firstOffset: 1, lastOffset: 1 }, [
      { offset: 1, error: 'refused', payload: Buffer.from('poison'), teamId: null },
    ])
    await runner(stage, deadLetters).runner.handleBatch(batch(['a', 'poison', 'c'], true))
    expect(stage.writes).toEqual(['0-1', '0-0', '1-1', '2-2'])
    expect(stage.stored).toEqual(['a', 'c'])
  })

  it('blames no message while storage is down', async () => {
    const stage = new StringStage()
    stage.down = new Error('connection refused')
    const deadLetters = new MemoryRecorder()
    const { runner: r, metrics } = runner(stage, deadLetters)
    const failing = batch(['a', 'poison'])
    for (let attempt = 0; attempt < 4; attempt++)
      await expect(r.handleBatch({ ...failing, redelivered: attempt > 0 })).rejects.toThrow(attempt < 2 ? 'refused' : 'connection refused')
    expect(metrics.get('wren_ingestion_batches_split_total')).toBe(0)
    expect(deadLetters.letters.size).toBe(0)
  })
})
