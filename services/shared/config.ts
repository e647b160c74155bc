// Configuration comes from environment variables, read here and nowhere else.
import path from 'node:path'

export interface Config {
  port: number
  host: string
  dataDir: string
  /** Bootstrap keys used on first start with an empty data directory. */
  bootstrapProjectApiKey: string | null
  bootstrapPersonalApiKey: string | null
  /** A fixed "now" for the whole process (ISO instant), for tests and history replays. */
  now: Date | null
  logLevel: string
  /** Public URL used in absolute `next`/`previous` links; defaults to the request's own host. */
  siteUrl: string | null
  ingestion: { maxBatchRecords: number; maxWaitMs: number; crashAfterBatches: number | null }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const now = env.WREN_NOW ? new Date(env.WREN_NOW) : null
  if (now && Number.isNaN(now.getTime())) throw new Error(`WREN_NOW is not an ISO instant: ${env.WREN_NOW}`)
  return {
    port: intFrom(env.PORT, 8000, 'PORT'),
    host: env.HOST ?? '0.0.0.0',
    dataDir: path.resolve(env.WREN_DATA_DIR ?? './data'),
    bootstrapProjectApiKey: env.WREN_PROJECT_API_KEY || null,
    bootstrapPersonalApiKey: env.WREN_PERSONAL_API_KEY || null,
    now,
    logLevel: env.LOG_LEVEL ?? 'info',
    siteUrl: env.WREN_SITE_URL ?? null,
    ingestion: {
      maxBatchRecords: intFrom(env.WREN_INGEST_BATCH, 10_000, 'WREN_INGEST_BATCH'),
      maxWaitMs: intFrom(env.WREN_INGEST_WAIT_MS, 200, 'WREN_INGEST_WAIT_MS'),
      // Failpoint for crash tests: SIGKILL this process after N batches are written but not committed.
      crashAfterBatches: env.WREN_FAILPOINT_CRASH_AFTER_BATCHES ? intFrom(env.WREN_FAILPOINT_CRASH_AFTER_BATCHES, 0, 'WREN_FAILPOINT_CRASH_AFTER_BATCHES') : null,
    },
  }
}

function intFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${value}`)
  return n
}
