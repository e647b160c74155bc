// The surveys posthog-js shows, as decide answers them (GET /api/surveys/?token= and the remote config's `surveys`):
// every project's running surveys held in memory, reloaded for a project whenever any process writes one of its
// surveys (heard on the configuration log), so the SDKs' requests never query ClickHouse. Shaped as PostHog's
// SurveyAPISerializer (no description: PostHog leaves it out, some keep private notes there).
import type { Logger } from 'pino'
import type { ClickHouseClient } from '../platform/clickhouse'
import type { Clock } from '../platform/clock'
import type { ConfigLog } from '../platform/log/config-log'
import { RepeatedFailures } from '../platform/repeated-failures'
import { isRunning, iterations, SurveyStore, type Survey } from './store'

const RETRY_MS = 5_000

/** A flag's key by its id (null: no such flag, or deleted). */
export type FlagKeyOf = (teamId: number, id: number) => string | null

/** A survey as posthog-js reads it. */
export function publicSurvey(s: Survey, flagKey: FlagKeyOf): Record<string, unknown> {
  const iteration = iterations(s)
  return {
    id: s.uuid,
    name: s.name,
    type: s.type,
    linked_flag_key: s.linkedFlagId !== null ? flagKey(s.teamId, s.linkedFlagId) : null,
    targeting_flag_key: s.targetingFlagId !== null ? flagKey(s.teamId, s.targetingFlagId) : null,
    internal_targeting_flag_key: null,
    questions: s.questions ?? [],
    conditions: s.conditions,
    appearance: s.appearance,
    start_date: s.startDate,
    end_date: s.endDate,
    current_iteration: iteration.current,
    current_iteration_start_date: iteration.currentStart,
    schedule: s.schedule,
    enable_partial_responses: s.enablePartialResponses ?? false,
  }
}

export class RunningSurveys {
  private readonly byTeam = new Map<number, Survey[]>()
  private readonly store: SurveyStore
  private readonly failures: RepeatedFailures

  constructor(
    client: ClickHouseClient,
    clock: Clock,
    private readonly config: ConfigLog,
    private readonly flagKey: FlagKeyOf,
    logger: Logger,
  ) {
    this.store = new SurveyStore(client, clock, config)
    this.failures = new RepeatedFailures(logger, 'reloading surveys failed; keeping the previous ones')
  }

  /** Loads every project's running surveys, then keeps each project's fresh after its surveys change. */
  async start(): Promise<void> {
    this.config.onChange((change) => {
      if (change.kind === 'survey') void this.reload(change.teamId)
    })
    for (const teamId of await this.store.teamsWithSurveys()) this.byTeam.set(teamId, (await this.store.list(teamId)).filter(isRunning))
  }

  /** The project's running surveys, in posthog-js's shape, oldest first. */
  running(teamId: number): Array<Record<string, unknown>> {
    return (this.byTeam.get(teamId) ?? []).map((s) => publicSurvey(s, this.flagKey))
  }

  private async reload(teamId: number): Promise<void> {
    try {
      this.byTeam.set(teamId, (await this.store.list(teamId)).filter(isRunning))
      this.failures.success()
    } catch (err) {
      this.failures.failure(err, { teamId })
      // Tried again in a moment: nothing else would (the next change may be hours away).
      setTimeout(() => void this.reload(teamId), RETRY_MS).unref()
    }
  }
}
