// Event properties stored as columns of the events table, so a query that breaks down or filters on one
// reads a small column instead of parsing every row's properties JSON. Five are fixed by a migration
// (012_materialized_properties.sql, String: '' there means unset). The others are added while Wren runs:
// a key the query compiler had to read from the JSON `minUses` times (once, by default) gets, in the
// background as soon as that happens (not at the job's next run), a MATERIALIZED column of the very
// expression the compiler would otherwise use (so answers are the same with or without it), stored
// as LowCardinality when a sample of the events shows few values (grouping by it then hashes dictionary
// positions, not strings: about 0.7x the time), named
// by a hash of the key and carrying the key in its COMMENT; the parts already stored are then rewritten
// in the background (MATERIALIZE COLUMN), and until a part is rewritten ClickHouse computes the column
// from the JSON when reading it. Every Wren process learns the columns from system.columns, at start and
// on each run of the job, so on a cluster a column one process adds is used by all.
import { createHash } from 'node:crypto'
import type { Logger } from 'pino'
import type { ClickHouseClient } from '../../platform/clickhouse'
import { queryRows } from '../../platform/clickhouse'
import { clusterStatements } from '../../platform/clickhouse/cluster'

/** The fixed columns of 012_materialized_properties.sql: `mat_<key>` String, '' when unset. */
export const FIXED_MATERIALIZED_PROPERTIES: readonly string[] = ['$browser', '$os', '$device_type', '$current_url', '$host']

/** Where the compiler reads event properties from: a column's SQL (a Nullable(String) value) or undefined for the JSON. */
export interface PropertyColumnSource {
  column(key: string): string | undefined
}

const fixedColumns = new Map(FIXED_MATERIALIZED_PROPERTIES.map((key) => [key, `nullIf(\`mat_${key}\`, '')`]))

/** Only the migration's columns (readers that do not take part in choosing hot properties). */
export const FIXED_PROPERTY_COLUMNS: PropertyColumnSource = { column: (key) => fixedColumns.get(key) }

/** A key with at most this many values in the sample gets a LowCardinality column (ClickHouse's advice: under ~10,000). */
const LOW_CARDINALITY_MAX = 5_000
const CARDINALITY_SAMPLE = 200_000
const MAX_COUNTED_KEYS = 10_000

/** The comment that marks an added column and names its key. */
const COMMENT_PREFIX = 'wren event property: '

export interface MaterializerOptions {
  /** JSON reads of a key before it gets a column (the read that reaches it starts a run at once). */
  minUses: number
  /** At most this many added columns (each costs a JSON parse per inserted row). */
  maxColumns: number
  /** How often the job runs. */
  intervalMs: number
  /** The ClickHouse cluster name in cluster mode (the DDL then runs ON CLUSTER, on the local and Distributed tables). */
  cluster: string | null
}

export const DEFAULT_MATERIALIZER_OPTIONS: MaterializerOptions = { minUses: 1, maxColumns: 20, intervalMs: 30_000, cluster: null }

/** The column a key gets: readable, and unique by the key's hash. */
export function materializedColumnName(key: string): string {
  const readable = key.replace(/[^A-Za-z0-9_$]/g, '_').slice(0, 40)
  return `pmat_${readable}_${createHash('sha256').update(key).digest('hex').slice(0, 10)}`
}

/** A ClickHouse string literal (DDL takes no query parameters). */
function literal(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
}

/**
 * The expression the compiler reads a non-materialized event property with (property-filters/sql.ts).
 * Not simpleJSONExtract* (visitParam): it takes 2/3 of the CPU but reads the key's first match at any
 * depth or inside an escaped key, and gives numbers and strings as written; guarded to give the same
 * answers, it costs more than this (bench/results/2026-11-25-issue-24-trends.md).
 */
export function jsonPropertyExpr(key: string): string {
  return `JSONExtract(properties, ${literal(key)}, 'Nullable(String)')`
}

export class PropertyMaterializer implements PropertyColumnSource {
  private readonly columns = new Map(fixedColumns)
  private readonly uses = new Map<string, number>()
  private timer: NodeJS.Timeout | null = null
  private running: Promise<string[]> | null = null
  /** A key reached `minUses` while a run was under way (which may have looked at the counts before): run again. */
  private again = false
  private readonly options: MaterializerOptions

  constructor(
    private readonly client: ClickHouseClient,
    private readonly logger: Logger,
    options: Partial<MaterializerOptions> = {},
  ) {
    this.options = { ...DEFAULT_MATERIALIZER_OPTIONS, ...options }
  }

  /**
   * The stored column of `key`, or undefined: the read from the JSON counts towards a column, and the read
   * that reaches `minUses` starts a run of the job in the background (while the job is started), so the
   * next query on the key reads its column.
   */
  column(key: string): string | undefined {
    const column = this.columns.get(key)
    // Counted for a bounded number of keys (a flood of one-off keys must not grow the map without end).
    if (column === undefined && usable(key) && (this.uses.has(key) || this.uses.size < MAX_COUNTED_KEYS)) {
      const uses = (this.uses.get(key) ?? 0) + 1
      this.uses.set(key, uses)
      if (uses === this.options.minUses) this.runSoon()
    }
    return column
  }

  private runSoon(): void {
    if (!this.timer) return // the job is stopped (or not started)
    if (this.running) this.again = true
    else void this.run()
  }

  /** Loads the columns already added, then runs the job every `intervalMs`. */
  async start(): Promise<void> {
    await this.refresh()
    const tick = () => {
      this.timer = setTimeout(() => void this.run().finally(() => this.timer && tick()), this.options.intervalMs)
      this.timer.unref()
    }
    tick()
  }

  /** Stops the job, after the run in progress (if any) has finished. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    await this.running
  }

  /** One run of the job: learns the columns other processes added, then adds the hot keys'; returns the keys added. */
  async run(): Promise<string[]> {
    this.running ??= this.materializeHot()
      .catch((err: unknown) => {
        this.logger.warn({ err }, 'materializing hot event properties failed')
        return []
      })
      .finally(() => {
        this.running = null
        if (this.again) {
          this.again = false
          this.runSoon()
        }
      })
    return this.running
  }

  private async refresh(): Promise<void> {
    // In cluster mode `events` is the Distributed table: it has the same columns and comments as events_local.
    const rows = await queryRows<{ name: string; comment: string }>(
      this.client,
      `SELECT name, comment FROM system.columns WHERE database = currentDatabase() AND table = 'events' AND startsWith(comment, {prefix:String})`,
      { prefix: COMMENT_PREFIX },
    )
    // Rebuilt each time: a column an operator dropped stops being read.
    this.columns.clear()
    for (const [key, column] of fixedColumns) this.columns.set(key, column)
    for (const { name, comment } of rows) this.columns.set(comment.slice(COMMENT_PREFIX.length), `\`${name}\``)
  }

  private async materializeHot(): Promise<string[]> {
    await this.refresh()
    const added = this.columns.size - fixedColumns.size
    const hot = [...this.uses]
      .filter(([key, n]) => n >= this.options.minUses && !this.columns.has(key))
      .sort((a, b) => b[1] - a[1])
      .slice(0, Math.max(0, this.options.maxColumns - added))
      .map(([key]) => key)
    for (const key of hot) {
      const [{ values }] = await queryRows<{ values: number }>(
        this.client,
        `SELECT uniq(v) AS values FROM (SELECT ${jsonPropertyExpr(key)} AS v FROM events LIMIT ${CARDINALITY_SAMPLE})`,
      )
      const lowCardinality = Number(values) <= LOW_CARDINALITY_MAX
      for (const query of materializeStatements(key, this.options.cluster, lowCardinality)) await this.client.command({ query })
      this.columns.set(key, `\`${materializedColumnName(key)}\``)
      this.uses.delete(key)
      this.logger.info({ key, column: materializedColumnName(key) }, 'materialized an event property')
    }
    return hot
  }
}

/**
 * The DDL giving `key` its column: added (on a cluster to every shard's local table and to the
 * Distributed table), then written into the stored parts by a background mutation (local tables only);
 * until a part is rewritten, reads compute the column from the JSON.
 */
export function materializeStatements(key: string, cluster: string | null, lowCardinality: boolean): string[] {
  const name = materializedColumnName(key)
  const type = lowCardinality ? 'LowCardinality(Nullable(String))' : 'Nullable(String)'
  return [
    `ALTER TABLE events ADD COLUMN IF NOT EXISTS \`${name}\` ${type} MATERIALIZED ${jsonPropertyExpr(key)} COMMENT ${literal(COMMENT_PREFIX + key)}`,
    `ALTER TABLE events MATERIALIZE COLUMN \`${name}\``,
  ].flatMap((statement) => (cluster ? clusterStatements(statement, cluster) : [statement]))
}

/** Keys worth a column: not empty, not huge, no control characters (they go into DDL as literals). */
function usable(key: string): boolean {
  // eslint-disable-next-line no-control-regex
  return key.length > 0 && key.length <= 200 && !/[\u0000-\u001f]/.test(key)
}
