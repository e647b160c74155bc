// The one way Wren reaches ClickHouse: @clickhouse/client, over chDB in embedded mode or over HTTP to a
// server in cluster mode. Tables are created and migrated at start from schemas/clickhouse/*.sql.
import { readdir, readFile, mkdir } from 'node:fs/promises'
import path from 'node:path'
import { createClient, type ClickHouseClient } from '@clickhouse/client'
import { createChdbConnection } from 'chdb/connection'

export type { ClickHouseClient }

export async function openEmbeddedClickHouse(dataDir: string): Promise<ClickHouseClient> {
  const dir = path.join(dataDir, 'clickhouse')
  await mkdir(dir, { recursive: true })
  return createClient({ connection: createChdbConnection({ path: dir }) } as Parameters<typeof createClient>[0])
}

const migrationsDir = new URL('../../schemas/clickhouse/', import.meta.url)

/** Applies every migration not yet recorded in `schema_migrations`, in file-name order. */
export async function migrate(client: ClickHouseClient): Promise<string[]> {
  await client.command({
    query: `CREATE TABLE IF NOT EXISTS schema_migrations (name String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3)) ENGINE = ReplacingMergeTree ORDER BY name`,
  })
  const applied = new Set((await queryRows<{ name: string }>(client, 'SELECT name FROM schema_migrations')).map((r) => r.name))
  const files = (await readdir(migrationsDir)).filter((f) => f.endsWith('.sql')).sort()
  const ran: string[] = []
  for (const file of files) {
    if (applied.has(file)) continue
    const sql = await readFile(new URL(file, migrationsDir), 'utf8')
    for (const statement of splitStatements(sql)) await client.command({ query: statement })
    await client.insert({ table: 'schema_migrations', values: [{ name: file }], format: 'JSONEachRow' })
    ran.push(file)
  }
  return ran
}

function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => s.length > 0)
}

// ISO date-times and plain JSON numbers, so rows read back as the values they were written as.
const READ_SETTINGS = { date_time_output_format: 'iso', output_format_json_quote_64bit_integers: 0 } as const

export async function queryRows<T>(client: ClickHouseClient, query: string, params: Record<string, unknown> = {}): Promise<T[]> {
  const result = await client.query({ query, query_params: params, format: 'JSONEachRow', clickhouse_settings: READ_SETTINGS })
  return result.json<T>()
}

export async function insertRows(client: ClickHouseClient, table: string, rows: object[], dedupToken?: string): Promise<void> {
  if (rows.length === 0) return
  await client.insert({
    table,
    values: rows,
    format: 'JSONEachRow',
    clickhouse_settings: {
      date_time_input_format: 'best_effort',
      ...(dedupToken ? { insert_deduplication_token: dedupToken } : {}),
    },
  })
}
