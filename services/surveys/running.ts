// The surveys posthog-js shows, as decide answers them (GET /api/surveys/?token= and the remote config's `surveys`):
// every project's running surveys held in memory, loaded at start and kept by every survey any process stores (each
// write is published whole on the configuration log, and applied here when newer than what is held), so the SDKs'
// requests never query ClickHouse. Shaped as PostHog's SurveyAPISerializer (no description: PostHog leaves it out,
// some keep private notes there).
import type { ClickHouseClient } from '../platform/clickhouse'
import type { Clock } from '../platform/clock'
import type { ConfigLog } from '../platform/log/config-log'
import { isRunning, iterations, SurveyStore, type Survey } from './store'

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
    internal_targeting_flag_key: s.internalTargetingFlagId !== null ? flagKey(s.teamId, s.internalTargetingFlagId) : null,
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
  /** Every survey seen, the latest version of each, by project then id. */
  private readonly byTeam = new Map<number, Map<number, Survey>>()

  constructor(
    private readonly store: SurveyStore,
    private readonly flagKey: FlagKeyOf,
  ) {}

  static async start(client: ClickHouseClient, clock: Clock, config: ConfigLog, flagKey: FlagKeyOf): Promise<RunningSurveys> {
    const store = new SurveyStore(client, clock, config)
    const surveys = new RunningSurveys(store, flagKey)
    config.onChange((change) => {
      if (change.kind === 'survey') surveys.apply(change.record as Survey)
    })
    for (const teamId of await store.teamsWithSurveys()) for (const s of await store.list(teamId)) surveys.apply(s)
    return surveys
  }

  /** The project's running surveys, in posthog-js's shape, oldest first. */
  running(teamId: number): Array<Record<string, unknown>> {
    return [...(this.byTeam.get(teamId)?.values() ?? [])].filter(isRunning).map((s) => publicSurvey(s, this.flagKey))
  }

  /** A stored survey, kept when newer than the one held (a change heard twice, or after the load, changes nothing). */
  private apply(survey: Survey): void {
    let team = this.byTeam.get(survey.teamId)
    if (!team) this.byTeam.set(survey.teamId, (team = new Map()))
    if ((team.get(survey.id)?.version ?? 0) < survey.version) team.set(survey.id, survey)
  }
}
