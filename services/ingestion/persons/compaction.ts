// Person compaction: keeps the storage of each person (and each distinct id and group) flat. Every batch that
// changes a person adds a row (schemas/clickhouse/002_persons.sql: _partition and _offset are in the
// sorting key, so merges never fold versions), because a replayed batch must be rebuilt from the version
// before it. Only a batch that is not committed can be replayed, and its replay bound (store.ts) is at or
// after the committed offset of its partition; so of the rows written by committed ranges (_offset below
// that offset), only the latest per key can ever be read as "the state before a batch". This job folds
// those rows into one per key:
//   1. per key, the latest version among its committed rows and its earlier compacted row is inserted
//      again as its compacted row, at (_partition, _offset) = (COMPACTED_PARTITION, 0). No log partition
//      has that number, so no replay bound leaves a compacted row out; and every compacted row of a key
//      has the same sorting key, so the ReplacingMergeTree folds them (by version) in its merges.
//   2. the committed rows are deleted: ALTER TABLE … DELETE WHERE <committed>, waited for.
// Readers (argMax over version) see the same state at every step: after 1 the compacted row duplicates
// the latest committed version, after 2 it is that version. A crash between the steps leaves both, and
// the next run inserts the same compacted rows again and deletes. Rows of a range in flight (its offsets
// are at or past the committed offset) are never touched, nor are rows written while the job runs.
//
// Why a mutation: ALTER TABLE … DELETE is what chDB and every ClickHouse server (Replicated tables too,
// where it is replicated, without ON CLUSTER; the person tables are a full copy on every node) both run,
// and it rewrites the parts at once, so the bytes go when it returns. Its predicate reads only the row's
// own columns (no subquery), so it is deterministic, as a Replicated table requires. A lightweight DELETE
// only masks the rows until parts merge (an OPTIMIZE … FINAL, which rewrites the whole table, measured 3×
// the mutation's time for the same result:
// bench/results/2026-11-25-issue-24-persons-storage.md). A ReplacingMergeTree keyed without the
// offset would fold the versions a replay needs.
import type { Logger } from 'pino'
import type { ClickHouseClient } from '../../platform/clickhouse'
import { INSERT_SELECT_SETTINGS, queryRows } from '../../platform/clickhouse'
import type { Log } from '../../platform/log/log'
import { subscription } from '../../platform/log/streams'
import type { Metrics } from '../../platform/metrics'

/** The _partition of compacted rows: UInt32's largest, which no log partition has. */
export const COMPACTED_PARTITION = 4294967295

/** A versioned person table: the columns that name a row's key, and the ones that carry its state. */
interface VersionedTable {
  table: string
  key: string[]
  values: string[]
}

export const COMPACTED_TABLES: VersionedTable[] = [
  { table: 'person', key: ['team_id', 'uuid'], values: ['id', 'properties', 'is_identified', 'is_deleted', 'created_at'] },
  { table: 'person_distinct_id', key: ['team_id', 'distinct_id'], values: ['person_uuid', 'is_deleted'] },
  // Groups are versioned as persons are ($groupidentify adds a row per batch); every reader takes argMax over version.
  { table: 'groups', key: ['team_id', 'group_type_index', 'group_key'], values: ['properties', 'created_at'] },
]

export interface CompactionResult {
  /** Per table: the committed rows folded (deleted), and the keys they belonged to (one compacted row each). */
  tables: Array<{ table: string; folded: number; keys: number }>
  ms: number
}

export class PersonCompaction {
  private timer: NodeJS.Timeout | null = null
  private running: Promise<CompactionResult> | null = null
  private stopped = false

  constructor(
    private readonly client: ClickHouseClient,
    private readonly log: Log,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
    /** Between runs; 0: never on a timer (run() still compacts). */
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.stopped = false
    this.schedule()
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    await this.running?.catch(() => undefined)
  }

  /** Compacts every person table up to the committed offsets of now; concurrent callers share one run. */
  run(): Promise<CompactionResult> {
    this.running ??= this.compact().finally(() => (this.running = null))
    return this.running
  }

  /** The committed offset of the ingestion group per partition of the ingest topic: rows below it are committed. */
  private async committed(): Promise<Array<[number, number]>> {
    const { topic, group } = subscription('events')
    const stats = await this.log.stats(topic, [group])
    const byPartition = stats.committedByPartition?.[group] ?? {}
    return Object.entries(byPartition)
      .map(([partition, offset]): [number, number] => [Number(partition), offset])
      .filter(([, offset]) => offset > 0)
  }

  private async compact(): Promise<CompactionResult> {
    const started = performance.now()
    const committed = await this.committed()
    const tables: CompactionResult['tables'] = []
    if (committed.length)
      for (const spec of COMPACTED_TABLES) {
        if (this.stopped) break
        tables.push(await this.compactTable(spec, committed))
      }
    const result = { tables, ms: Math.round(performance.now() - started) }
    for (const t of tables) this.metrics.inc('wren_person_compaction_rows_total', t.folded, { table: t.table })
    if (tables.some((t) => t.folded > 0)) this.logger.info(result, 'compacted person versions')
    return result
  }

  private async compactTable({ table, key, values }: VersionedTable, committed: Array<[number, number]>) {
    const params = { partitions: committed.map(([p]) => p), offsets: committed.map(([, o]) => o) }
    // Rows of committed ranges: below their partition's committed offset (a partition not named: none).
    const isCommitted = `(_partition != ${COMPACTED_PARTITION} AND _offset < transform(_partition, {partitions:Array(UInt32)}, {offsets:Array(UInt64)}, toUInt64(0)))`
    const [count] = await queryRows<{ rows: number; keys: number }>(
      this.client,
      `SELECT count() AS rows, uniqExact(${key.join(', ')}) AS keys FROM ${table} WHERE ${isCommitted}`,
      params,
      { unbounded: true },
    )
    const folded = Number(count?.rows ?? 0)
    if (folded === 0) return { table, folded: 0, keys: 0 }
    const columns = [...key, ...values, 'version', '_partition', '_offset']
    // Query-level SETTINGS: chDB keeps a setting passed as clickhouse_settings for the session (SET), and
    // ingestion's inserts rely on deduplication. These rows are new rows under no range's token.
    await this.client.command({
      query: `INSERT INTO ${table} (${columns.join(', ')}) SETTINGS insert_deduplicate = 0, insert_deduplication_token = '', ${INSERT_SELECT_SETTINGS}
              SELECT ${key.join(', ')}, ${values.map((c) => `argMax(${c}, version)`).join(', ')}, max(version), ${COMPACTED_PARTITION}, 0
              FROM ${table} WHERE ${isCommitted} OR _partition = ${COMPACTED_PARTITION}
              GROUP BY ${key.join(', ')} HAVING countIf(_partition != ${COMPACTED_PARTITION}) > 0`,
      query_params: params,
    })
    await this.client.command({
      query: `ALTER TABLE ${table} DELETE WHERE ${isCommitted} SETTINGS mutations_sync = 2`,
      query_params: params,
    })
    return { table, folded, keys: Number(count?.keys ?? 0) }
  }

  private schedule(): void {
    if (this.stopped || this.intervalMs <= 0) return
    this.timer = setTimeout(() => {
      void this.run()
        .catch((err: unknown) => this.logger.error({ err }, 'person compaction failed; will retry at the next run'))
        .finally(() => this.schedule())
    }, this.intervalMs)
    this.timer.unref()
  }
}
