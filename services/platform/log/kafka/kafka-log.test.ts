// The Kafka log on a real broker (started from Maven Central's jars): per-partition batches in key
// order, commits only after the handler, retries marked redelivered, and a consumer-group rebalance
// between two consumers that hands every record to exactly one of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka, logLevel } from 'kafkajs'
import { kafkaUnavailableReason, kafkaForThisFile, type FileKafka } from '../../../../test/support/kafka'
import { waitFor } from '../../../../test/support/wren'
import { openKafkaLog, type KafkaLog } from './kafka-log'
import type { LogBatch } from '../log'
import { skipReason } from '../../../../test/support/skip'

const unavailable = skipReason('kafka log tests', kafkaUnavailableReason())

interface Delivery {
  consumer: string
  partition: number
  first: number
  last: number
  redelivered: boolean
  values: string[]
}

describe.skipIf(unavailable !== null)(`kafka log on a real broker${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let kafka: FileKafka
  const logs: KafkaLog[] = []
  const open = async () => {
    const log = await openKafkaLog({
      brokers: [kafka.brokers],
      topicPrefix: kafka.topicPrefix,
      partitions: 4,
      replicationFactor: 1,
      sessionTimeoutMs: 6000,
      logger: { warn: () => {}, error: () => {}, info: () => {}, debug: () => {} },
    })
    logs.push(log)
    return log
  }
  const produce = (log: KafkaLog, topic: string, from: number, count: number) =>
    log.append(
      topic,
      Array.from({ length: count }, (_, i) => ({ key: `k${(from + i) % 8}`, value: Buffer.from(`k${(from + i) % 8}:${from + i}`) })),
    )

  beforeAll(async () => {
    kafka = await kafkaForThisFile()
  }, 120_000)
  afterAll(async () => {
    await Promise.all(logs.map((l) => l.close()))
    await kafka?.stop()
  })

  it('delivers per-partition batches in key order, retries a failed batch as redelivered, commits after the handler, tells of the next batch', async () => {
    const log = await open()
    const deliveries: Delivery[] = []
    const hints: Array<[number, number, number]> = []
    let failOnce = true
    await produce(log, 'klog_basic', 0, 500)
    const sub = log.subscribe({
      topic: 'klog_basic',
      group: 'basic',
      maxBatchRecords: 50,
      maxWaitMs: 20,
      handler: async (b: LogBatch) => {
        if (failOnce) {
          failOnce = false
          throw new Error('ClickHouse is away')
        }
        deliveries.push({
          consumer: 'a',
          partition: b.partition,
          first: b.firstOffset,
          last: b.lastOffset,
          redelivered: b.redelivered,
          values: b.records.map((r) => r.value.toString()),
        })
      },
      onError: () => {},
      lookahead: (next) => hints.push([next.partition, next.firstOffset, next.lastOffset]),
    })
    await waitFor(
      async () => {
        const stats = await log.stats('klog_basic')
        return stats.endOffset === 500 && stats.committed.basic === 500
      },
      { timeoutMs: 30_000, what: 'everything committed' },
    )
    await sub.stop()
    expect(deliveries[0].redelivered).toBe(true)
    expect(deliveries.slice(1).every((d) => !d.redelivered)).toBe(true)
    expect(deliveries.every((d) => d.values.length <= 50)).toBe(true)
    const seen = deliveries.flatMap((d) => d.values)
    expect(seen).toHaveLength(500)
    // Each key's values arrive in the order they were appended.
    for (let k = 0; k < 8; k++) {
      const ns = seen.filter((v) => v.startsWith(`k${k}:`)).map((v) => Number(v.split(':')[1]))
      expect(ns).toEqual([...ns].sort((a, b) => a - b))
    }
    // A batch told of while the one before ran (a fetch holds several) is the one handed out next.
    expect(hints.length).toBeGreaterThan(0)
    for (const [partition, first, last] of hints)
      expect(deliveries.some((d) => d.partition === partition && d.first === first && d.last === last && !d.redelivered)).toBe(true)
    // On the broker, the topic and the group carry the log's prefix (KAFKA_TOPIC_PREFIX); the log's callers never see it.
    const admin = new Kafka({ brokers: [kafka.brokers], logLevel: logLevel.NOTHING }).admin()
    await admin.connect()
    const [topics, groups] = [await admin.listTopics(), (await admin.listGroups()).groups.map((g) => g.groupId)]
    await admin.disconnect()
    expect(topics).toContain(`${kafka.topicPrefix}klog_basic`)
    expect(topics).not.toContain('klog_basic')
    expect(groups).toContain(`${kafka.topicPrefix}basic`)
    expect(groups).not.toContain('basic')
  })

  it('a rebalance between two consumers of a group hands every record to exactly one of them', async () => {
    const [a, b] = [await open(), await open()]
    const deliveries: Delivery[] = []
    const handler = (consumer: string) => async (batch: LogBatch) => {
      await new Promise((r) => setTimeout(r, 10))
      deliveries.push({
        consumer,
        partition: batch.partition,
        first: batch.firstOffset,
        last: batch.lastOffset,
        redelivered: batch.redelivered,
        values: batch.records.map((r) => r.value.toString()),
      })
    }
    const options = { topic: 'klog_rebalance', group: 'rebalance', maxBatchRecords: 100, maxWaitMs: 20 }
    await produce(a, 'klog_rebalance', 0, 2000)
    const subA = a.subscribe({ ...options, handler: handler('a') })
    await waitFor(async () => deliveries.length > 0, { timeoutMs: 30_000, what: 'a first batch' })
    // B joins mid-stream: the group rebalances and the partitions are split between A and B.
    const subB = b.subscribe({ ...options, handler: handler('b') })
    // Keep records coming until the rebalance has given B partitions (its timing is the broker's).
    let produced = 2000
    const deadline = Date.now() + 60_000
    while (!deliveries.some((d) => d.consumer === 'b')) {
      if (Date.now() > deadline) throw new Error('B never got partitions within 60 s')
      await produce(a, 'klog_rebalance', produced, 200)
      produced += 200
      await new Promise((r) => setTimeout(r, 200))
    }
    // A leaves gracefully: it finishes and commits its batch, B takes over its partitions.
    await subA.stop()
    await produce(b, 'klog_rebalance', produced, 1000)
    produced += 1000
    await waitFor(async () => (await b.stats('klog_rebalance')).committed.rebalance === produced, {
      timeoutMs: 60_000,
      what: `all ${produced} committed`,
    })
    await subB.stop()

    // A redelivered range is a replay of one handed out before, or one that no one was handed: an owner that lost
    // the partition between marking the range pending and handing it out (kafka-log.ts, deliver) leaves it to the
    // next owner as redelivered (seen under load: all 100 records of such a range missing from the fresh ones).
    const fresh = deliveries.filter((d) => !d.redelivered)
    const replayed = (d: Delivery) => fresh.some((f) => f.partition === d.partition && f.first === d.first && f.last === d.last)
    const firsts = deliveries.filter((d) => !d.redelivered || !replayed(d))
    const values = firsts.flatMap((d) => d.values)
    expect(values).toHaveLength(produced)
    expect(new Set(values).size).toBe(produced)
    expect(new Set(deliveries.map((d) => d.consumer))).toEqual(new Set(['a', 'b']))
    // Per partition, the ranges first handed out follow each other without gaps or overlaps.
    for (let p = 0; p < 4; p++) {
      const ranges = firsts.filter((d) => d.partition === p).sort((x, y) => x.first - y.first)
      for (let i = 1; i < ranges.length; i++) expect(ranges[i].first).toBe(ranges[i - 1].last + 1)
    }
  }, 120_000)
})
