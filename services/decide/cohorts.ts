// Cohorts as decide reads them: every project's definitions and static members (resolved to persons)
// held in memory, reloaded after each cohort change (heard on the configuration log, from any process) and
// every few seconds (static members are distinct ids, whose persons change), so flag evaluation never
// queries ClickHouse on the request path.
import type { Logger } from 'pino'
import type { ClickHouseClient } from '../platform/clickhouse'
import { queryRows } from '../platform/clickhouse'
import type { StoredPropertyGroup } from '../flags/types'
import type { ConfigLog } from '../platform/log/config-log'
import { RepeatedFailures } from '../platform/repeated-failures'

/** A cohort as flags need it: a static member list or a property group (reference §3.5). */
export interface CohortDefinition {
  id: number
  isStatic: boolean
  /** `{type: AND|OR, values: [groups or filters]}`; unused for static cohorts. */
  properties: StoredPropertyGroup | null
}

/**
 * How flags read cohorts. The cohorts service (issue 4) owns storage; decide needs only these lookups,
 * both answered from memory. `undefined` means "not known": the flag is then reported as failed.
 */
export interface CohortReader {
  get(teamId: number, cohortId: number): CohortDefinition | undefined
  /** Static cohort membership; undefined when the cohort or membership list is unknown. */
  isStaticMember(teamId: number, cohortId: number, personUuid: string): boolean | undefined
  /** Every non-deleted cohort of a project, for the local-evaluation payload. */
  list(teamId: number): CohortDefinition[]
  /** Changes whenever what get or isStaticMember answer may have changed. */
  version(): number
}

export const NO_COHORTS: CohortReader = {
  get: () => undefined,
  isStaticMember: () => undefined,
  list: () => [],
  version: () => 0,
}

const RELOAD_MS = 5_000

export class CachedCohortReader implements CohortReader {
  private cohorts = new Map<number, CohortDefinition[]>()
  private staticMembers = new Map<string, Set<string>>()
  private loaded = false
  private loadedVersion = 0
  /** What was loaded last, to tell a reload that changed something from one that did not. */
  private signature = ''
  private timer: NodeJS.Timeout | null = null
  private reloading: Promise<void> | null = null
  private again = false
  private readonly failures: RepeatedFailures

  constructor(
    private readonly client: ClickHouseClient,
    logger: Logger,
  ) {
    this.failures = new RepeatedFailures(logger, 'reloading cohorts failed; keeping the previous ones')
  }

  /** Loads now, then keeps fresh: after every cohort change any process makes, and on a timer. */
  async start(config: ConfigLog): Promise<void> {
    config.onChange((change) => {
      if (change.kind === 'cohort') void this.reload()
    })
    await this.reload()
    this.timer = setInterval(() => void this.reload(), RELOAD_MS)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
  }

  get(teamId: number, cohortId: number): CohortDefinition | undefined {
    return this.cohorts.get(teamId)?.find((c) => c.id === cohortId)
  }

  isStaticMember(teamId: number, cohortId: number, personUuid: string): boolean | undefined {
    if (!this.loaded || !this.get(teamId, cohortId)) return undefined
    return this.staticMembers.get(`${teamId}:${cohortId}`)?.has(personUuid) ?? false
  }

  list(teamId: number): CohortDefinition[] {
    return this.cohorts.get(teamId) ?? []
  }

  version(): number {
    return this.loadedVersion
  }

  /** Reloads; asked again while a reload runs (which may have read before the change), it runs once more after. */
  reload(): Promise<void> {
    if (this.reloading) {
      this.again = true
      return this.reloading
    }
    this.reloading = this.load()
      .then(
        () => this.failures.success(),
        (err: unknown) => this.failures.failure(err),
      )
      .finally(() => {
        this.reloading = null
        if (this.again) {
          this.again = false
          void this.reload()
        }
      })
    return this.reloading
  }

  private async load(): Promise<void> {
    const rows = await queryRows<{ team_id: number; id: number; filters: string; is_static: number }>(
      this.client,
      `SELECT team_id, id, argMax(filters, version) AS filters, argMax(is_static, version) AS is_static, argMax(deleted, version) AS gone
       FROM cohorts GROUP BY team_id, id HAVING gone = 0 ORDER BY team_id, id`,
    )
    const members = await queryRows<{ team_id: number; cohort_id: number; person_uuid: string }>(
      this.client,
      `SELECT m.team_id AS team_id, m.cohort_id AS cohort_id, toString(d.person_uuid) AS person_uuid
       FROM cohort_static_members AS m
       INNER JOIN (SELECT team_id, distinct_id, argMax(person_uuid, version) AS person_uuid, argMax(is_deleted, version) AS gone
                   FROM person_distinct_id
                   -- only the ids some static cohort lists: this runs every few seconds, all persons would not scale
                   WHERE (team_id, distinct_id) IN (SELECT team_id, distinct_id FROM cohort_static_members)
                   GROUP BY team_id, distinct_id HAVING gone = 0) AS d
       ON m.team_id = d.team_id AND m.distinct_id = d.distinct_id`,
      {},
      { unbounded: true },
    )
    const cohorts = new Map<number, CohortDefinition[]>()
    for (const r of rows) {
      const filters = JSON.parse(r.filters || '{}') as { properties?: StoredPropertyGroup }
      const list = cohorts.get(Number(r.team_id)) ?? []
      list.push({ id: Number(r.id), isStatic: Number(r.is_static) === 1, properties: filters.properties ?? null })
      cohorts.set(Number(r.team_id), list)
    }
    const staticMembers = new Map<string, Set<string>>()
    for (const m of members) {
      const key = `${m.team_id}:${m.cohort_id}`
      const set = staticMembers.get(key) ?? new Set<string>()
      set.add(m.person_uuid)
      staticMembers.set(key, set)
    }
    this.cohorts = cohorts
    this.staticMembers = staticMembers
    this.loaded = true
    // The timed reload mostly finds nothing new: only a change makes cached flag answers stale.
    const signature =
      JSON.stringify(rows) +
      members
        .map((m) => `${m.team_id}:${m.cohort_id}:${m.person_uuid}`)
        .sort()
        .join(',')
    if (signature !== this.signature) this.loadedVersion++
    this.signature = signature
  }
}
