// Where the ingestion processor puts messages it cannot process, one mechanism per mode: embedded mode
// keeps them in ClickHouse's dead_letters table (written under the batch's deduplication token, so a
// replay stores them once); cluster mode sends them to the Kafka dead-letter topic, keyed by their
// origin (topic/partition/offset) so a replay's second copy is recognisable. Either way the stream goes on.
import type { ClickHouseClient } from '../shared/clickhouse'
import { insertRows } from '../shared/clickhouse'
import type { LogBatch } from '../shared/log/log'
import type { KafkaLog } from '../shared/log/kafka-log'

export interface DeadLetter {
  offset: number
  error: string
  payload: Buffer
}

export type DeadLetterSink = (batch: LogBatch, letters: DeadLetter[]) => Promise<void>

export function clickHouseDeadLetters(client: ClickHouseClient): DeadLetterSink {
  return async (batch, letters) => {
    await insertRows(
      client,
      'dead_letters',
      letters.map((d) => ({ topic: batch.topic, partition: batch.partition, offset: d.offset, error: d.error, payload: d.payload.toString('base64'), at: new Date().toISOString() })),
      `dead_letters:${batch.topic}:${batch.partition}:${batch.firstOffset}-${batch.lastOffset}`,
    )
  }
}

export function kafkaDeadLetters(log: KafkaLog, group: string): DeadLetterSink {
  return (batch, letters) => log.deadLetter(letters.map((d) => ({ source: { topic: batch.topic, partition: batch.partition, offset: d.offset }, error: d.error, payload: d.payload, group })))
}
