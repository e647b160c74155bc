// The one way to open Wren's storage, for the server and the CLI alike: ClickHouse (a server when
// CLICKHOUSE_URL is set, else chDB in the data directory) with its migrations applied, and the log (Kafka when
// KAFKA_BROKERS is set, else the embedded log in the data directory).
//
// The locking rule: whenever either store lives in the data directory, the process takes its lock first,
// because chDB and the embedded log both assume one owner. Only with both a ClickHouse server and Kafka is
// the data directory unused, and unlocked.
import path from 'node:path'
import type { Logger } from 'pino'
import type { Config } from '../platform/config'
import { migrate, openEmbeddedClickHouse, openServerClickHouse, type ClickHouseClient } from '../platform/clickhouse'
import { lockDataDir } from '../platform/lock'
import type { Log } from '../platform/log/log'
import { openEmbeddedLog } from '../platform/log/embedded/embedded-log'
import { openKafkaLog, type KafkaLog } from '../platform/log/kafka/kafka-log'
import type { Lifecycle } from './lifecycle'

export interface Storage {
  clickhouse: ClickHouseClient
  log: Log
  /** The log when it is Kafka (cluster mode), for what only Kafka has (the dead-letter topic, feeds). */
  kafka: KafkaLog | null
}

/** True when chDB or the embedded log lives in the data directory, which one process owns. */
export function usesDataDir(config: Pick<Config, 'kafka' | 'clickhouse'>): boolean {
  return !(config.kafka && config.clickhouse)
}

/**
 * Opens storage and registers its stop steps on `lifecycle` (the log closes before ClickHouse, and the data
 * directory is unlocked last). Throws DataDirLockedError when another process owns the data directory.
 */
export async function openStorage(config: Config, lifecycle: Lifecycle, opts: { clientId: string; logger: Logger }): Promise<Storage> {
  if (usesDataDir(config)) lifecycle.started('data directory lock', await lockDataDir(config.dataDir), (unlock) => unlock())
  const clickhouse = lifecycle.started(
    'clickhouse',
    config.clickhouse
      ? await openServerClickHouse(config.clickhouse, config.query)
      : await openEmbeddedClickHouse(config.dataDir, config.query),
    (client) => client.close(),
  )
  const migrated = await migrate(clickhouse, { cluster: config.clickhouse?.cluster })
  if (migrated.length > 0) opts.logger.info({ migrations: migrated }, 'applied ClickHouse migrations')
  const kafka = config.kafka
    ? await openKafkaLog({ ...config.kafka, clientId: opts.clientId, logger: opts.logger.child({ service: 'kafka' }) })
    : null
  const log: Log = lifecycle.started(
    'log',
    kafka ?? (await openEmbeddedLog({ dir: path.join(config.dataDir, 'log'), logger: opts.logger, retention: config.logRetention })),
    (log) => log.close(),
  )
  return { clickhouse, log, kafka }
}
