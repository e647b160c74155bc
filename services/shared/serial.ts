// Small pieces for the versioned configuration tables (actions, cohorts): writes one at a time, so
// reading the next id and inserting it cannot interleave.
import type { ClickHouseClient } from './clickhouse'
import { queryRows } from './clickhouse'

/** Runs tasks one after another; a failed task does not stop the ones queued behind it. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve()

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task)
    this.tail = result.catch(() => undefined)
    return result
  }
}

/** The next free integer id of a table (ids are unique across projects, as PostHog's are). */
export async function nextRowId(client: ClickHouseClient, table: 'actions' | 'cohorts'): Promise<number> {
  const [row] = await queryRows<{ next: number }>(client, `SELECT max(id) + 1 AS next FROM ${table}`)
  return Math.max(1, Number(row?.next ?? 1))
}
