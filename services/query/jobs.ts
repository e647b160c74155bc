// The Query API's asynchronous queries (PostHog's execute_async.py): a job runs one query in the background
// under its own signal, its status is read with GET …/query/:id/ and cancelled with DELETE (the signal
// aborts: queryRows kills the ClickHouse query by its id, embedded or on a server or cluster).
//
// Jobs live in this process's memory only. A restart forgets them, and a status asked for after one is a
// 404, as PostHog answers for an expired status. In cluster mode a job is known to the api process that
// started it. A job is only visible to its project; its status expires PostHog's 20 minutes after it was
// last written.
import { randomUUID } from 'node:crypto'
import type { Clock } from '../platform/clock'
import { fromClickHouseError, WrenError, wrenError } from '../platform/errors'

/** PostHog's QueryStatus. */
export interface QueryStatus {
  id: string
  team_id: number
  query_async: true
  insight_id: number | null
  dashboard_id: number | null
  complete: boolean
  error: boolean
  error_message: string | null
  /** The whole answer, as a blocking request gets it, once complete. */
  results: Record<string, unknown> | null
  start_time: string
  pickup_time: string | null
  end_time: string | null
  expiration_time: string
  task_id: string | null
  query_progress: null
  labels: string[] | null
}

/** PostHog keeps a status for 20 minutes after it was last written. */
export const JOB_TTL_MS = 20 * 60_000

interface Job {
  status: QueryStatus
  controller: AbortController
  /** Settles when the job has stopped (complete, failed or cancelled). */
  done: Promise<void>
  /** The size of its kept results (UTF-16 code units of their JSON, twice): 0 until they are in. */
  bytes: number
}

export interface JobContext {
  insightId?: number | null
  dashboardId?: number | null
}

/** A new query id, as PostHog's (32 hex digits). */
export const newQueryId = (): string => randomUUID().replaceAll('-', '')

export class QueryJobs {
  private readonly jobs = new Map<string, Job>()
  /** The kept results' bytes, summed (a HogQL answer may hold 50,000 rows: a count alone bounds no memory). */
  private keptBytes = 0

  /** `maxRunning`: past it, a new job is refused with a 429 naming the bound (WREN_QUERY_MAX_ASYNC). */
  constructor(
    private readonly clock: Clock,
    readonly maxRunning: number,
    private readonly maxKept = 2_000,
    private readonly maxKeptBytes = 256 << 20,
  ) {}

  /** Starts `work` as job `id` of the project, unless that job is under way already: then its status. */
  start(teamId: number, id: string, ctx: JobContext, work: (signal: AbortSignal) => Promise<Record<string, unknown>>): QueryStatus {
    this.sweep()
    const slot = `${teamId}:${id}`
    const existing = this.jobs.get(slot)
    if (existing && !existing.status.complete) return { ...existing.status }
    if (this.running >= this.maxRunning)
      throw wrenError(
        'too_many_queries',
        `${this.running} asynchronous queries are running, the most this server runs at once (WREN_QUERY_MAX_ASYNC=${this.maxRunning}): retry when one is done.`,
      )
    const now = this.now()
    const controller = new AbortController()
    const status: QueryStatus = {
      id,
      team_id: teamId,
      query_async: true,
      insight_id: ctx.insightId ?? null,
      dashboard_id: ctx.dashboardId ?? null,
      complete: false,
      error: false,
      error_message: null,
      results: null,
      start_time: now.toISOString(),
      // Picked up at once: the job runs in this process.
      pickup_time: now.toISOString(),
      end_time: null,
      expiration_time: new Date(now.getTime() + JOB_TTL_MS).toISOString(),
      task_id: id,
      query_progress: null,
      labels: null,
    }
    const finish = (change: Partial<QueryStatus>) => {
      const end = this.now()
      Object.assign(
        status,
        { complete: true, end_time: end.toISOString(), expiration_time: new Date(end.getTime() + JOB_TTL_MS).toISOString() },
        change,
      )
    }
    const job: Job = {
      status,
      controller,
      bytes: 0,
      done: Promise.resolve()
        .then(() => work(controller.signal))
        .then(
          (results) => {
            finish({ results })
            job.bytes = 2 * JSON.stringify(results).length
            this.keptBytes += job.bytes
            this.trim()
          },
          (err: unknown) => {
            // As the error handler reads it: a query ClickHouse refuses for the caller's input is the caller's 4xx.
            const known = err instanceof WrenError ? err : fromClickHouseError(err)
            // Only what the caller may read (a 4xx's detail); other failures say nothing (PostHog's rule).
            finish({ error: true, error_message: known && known.status < 500 ? known.message : null })
          },
        ),
    }
    this.jobs.set(slot, job)
    this.trim()
    return { ...status }
  }

  /** The job's status; another project's job, or one expired or forgotten, is a 404. */
  status(teamId: number, id: string): QueryStatus {
    return { ...this.find(teamId, id).status }
  }

  /** Cancels the job (its ClickHouse query is killed) and forgets it; the message says which it was. */
  async cancel(teamId: number, id: string): Promise<string> {
    const job = this.find(teamId, id)
    this.forget(`${teamId}:${id}`)
    if (job.status.complete) return 'Query already complete.'
    job.controller.abort(new Error('the query was cancelled'))
    await job.done
    return 'Cancelled the query on ClickHouse.'
  }

  /** Stops every running job (Wren is stopping). */
  async stop(): Promise<void> {
    const running = [...this.jobs.values()].filter((j) => !j.status.complete)
    for (const job of running) job.controller.abort(new Error('Wren is stopping'))
    await Promise.all(running.map((j) => j.done))
  }

  get running(): number {
    let n = 0
    for (const job of this.jobs.values()) if (!job.status.complete) n++
    return n
  }

  private find(teamId: number, id: string): Job {
    this.sweep()
    const job = this.jobs.get(`${teamId}:${id}`)
    if (!job) throw wrenError('not_found', `Query ${id} not found for team ${teamId}.`)
    return job
  }

  private now(): Date {
    return this.clock.now()
  }

  /** Forgets the statuses past their expiration. */
  private sweep(): void {
    const now = this.now().getTime()
    for (const [slot, job] of this.jobs) if (job.status.complete && Date.parse(job.status.expiration_time) <= now) this.forget(slot)
  }

  /** Keeps at most `maxKept` statuses and `maxKeptBytes` of results: the oldest finished ones go first. */
  private trim(): void {
    const over = () => this.jobs.size > this.maxKept || this.keptBytes > this.maxKeptBytes
    for (const [slot, job] of this.jobs) {
      if (!over()) break
      if (job.status.complete) this.forget(slot)
    }
  }

  private forget(slot: string): void {
    this.keptBytes -= this.jobs.get(slot)?.bytes ?? 0
    this.jobs.delete(slot)
  }
}
