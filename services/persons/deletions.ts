// Deferred deletion of a person's events: queued durably in ClickHouse, run in one batch at 05:00 UTC
// every Sunday (as PostHog does), and at start for any run that was missed while Wren was down.
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { ClickHouseClient } from '../platform/clickhouse'
import { insertRows, queryRows } from '../platform/clickhouse'
import type { Clock } from '../platform/clock'

/** The first Sunday 05:00 UTC strictly after `now`. */
export function nextRunAfter(now: Date): Date {
  const run = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 5, 0, 0, 0))
  run.setUTCDate(run.getUTCDate() + ((7 - run.getUTCDay()) % 7))
  if (run.getTime() <= now.getTime()) run.setUTCDate(run.getUTCDate() + 7)
  return run
}

/** The latest Sunday 05:00 UTC at or before `now`. */
export function lastRunAtOrBefore(now: Date): Date {
  const next = nextRunAfter(now)
  return new Date(next.getTime() - 7 * 24 * 3600 * 1000)
}

interface Task {
  id: string
  team_id: number
  kind: string
  key: string
  distinct_ids: string[]
  created_at: string
}

export class DeletionScheduler {
  private timer: NodeJS.Timeout | null = null
  private running: Promise<number> | null = null

  constructor(
    private readonly client: ClickHouseClient,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async enqueuePersonEvents(teamId: number, personUuid: string, distinctIds: string[]): Promise<void> {
    await insertRows(this.client, 'deletion_tasks', [
      {
        id: randomUUID(),
        team_id: teamId,
        kind: 'person_events',
        key: personUuid,
        distinct_ids: distinctIds,
        created_at: this.clock.now().toISOString(),
        status: 'queued',
        finished_at: null,
        version: 1,
      },
    ])
  }

  async queued(teamId?: number): Promise<Task[]> {
    return queryRows<Task>(
      this.client,
      `SELECT id, team_id, kind, key, distinct_ids, created_at FROM deletion_tasks FINAL WHERE status = 'queued' ${teamId === undefined ? '' : 'AND team_id = {t:Int64}'} ORDER BY created_at`,
      teamId === undefined ? {} : { t: teamId },
    )
  }

  start(): void {
    void this.tick()
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  /** Runs every task queued before the latest scheduled run time; returns how many ran. */
  async runDue(): Promise<number> {
    this.running ??= this.runTasks().finally(() => (this.running = null))
    return this.running
  }

  private async runTasks(): Promise<number> {
    const cutoff = lastRunAtOrBefore(this.clock.now())
    const due = (await this.queued()).filter((t) => new Date(t.created_at).getTime() <= cutoff.getTime())
    for (const task of due) {
      // Wide persons' events waiting for their copy into events (ingestion/persons/wide.ts) go too.
      for (const table of ['events', 'wide_events'])
        await this.client.command({
          query: `DELETE FROM ${table} WHERE team_id = {t:Int64} AND (person_id = {p:UUID} OR distinct_id IN {ids:Array(String)}) AND created_at <= parseDateTime64BestEffort({c:String}, 6)`,
          // events that arrived after the request belong to whoever the distinct id names now
          query_params: { t: task.team_id, p: task.key, ids: task.distinct_ids, c: task.created_at },
        })
      await insertRows(this.client, 'deletion_tasks', [
        { ...task, status: 'done', finished_at: this.clock.now().toISOString(), version: 2 },
      ])
    }
    if (due.length) this.logger.info({ count: due.length }, 'ran queued deletions')
    return due.length
  }

  private async tick(): Promise<void> {
    try {
      await this.runDue()
    } catch (err) {
      this.logger.error({ err }, 'deletion run failed; will retry at the next run')
    }
    const wait = Math.min(nextRunAfter(this.clock.now()).getTime() - this.clock.now().getTime(), 24 * 3600 * 1000)
    this.timer = setTimeout(() => void this.tick(), Math.max(wait, 1000))
    this.timer.unref()
  }
}
