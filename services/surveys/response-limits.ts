// A survey's responses_limit, as PostHog keeps it (its periodic stop_surveys_reached_target): every minute, a survey not
// stopped whose responses (counted from the earliest creation among the project's limited surveys) have reached its
// limit is stopped, end_date now and its limit cleared, so posthog-js shows it no more. Not a strict limit: answers
// sent before the next check still count.
import type { Logger } from 'pino'
import type { ClickHouseClient } from '../platform/clickhouse'
import type { Clock } from '../platform/clock'
import { RepeatedFailures } from '../platform/repeated-failures'
import { responseCounts } from './stats'
import type { Survey, SurveyStore } from './store'

const EVERY_MS = 60_000

const limitedAndOn = (s: Survey) => s.responsesLimit !== null && s.endDate === null && !s.deleted

export class SurveyResponseLimits {
  private timer: NodeJS.Timeout | null = null
  private checking: Promise<string[]> | null = null
  private readonly failures: RepeatedFailures

  constructor(
    private readonly surveys: SurveyStore,
    private readonly client: ClickHouseClient,
    private readonly clock: Clock,
    logger: Logger,
  ) {
    this.failures = new RepeatedFailures(logger, 'checking the surveys’ response limits failed; trying again in a minute')
  }

  start(): void {
    this.timer = setInterval(() => {
      this.checking ??= this.check()
        .then(
          (stopped) => (this.failures.success(), stopped),
          (err: unknown) => (this.failures.failure(err), []),
        )
        .finally(() => (this.checking = null))
    }, EVERY_MS)
    this.timer.unref()
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    await this.checking
  }

  /** Stops every survey whose responses have reached its limit; the uuids of those it stopped. */
  async check(): Promise<string[]> {
    const stopped: string[] = []
    for (const teamId of await this.surveys.teamsWithSurveys()) {
      const limited = (await this.surveys.list(teamId)).filter(limitedAndOn)
      if (limited.length === 0) continue
      const counts = await responseCounts(this.client, teamId, Math.min(...limited.map((s) => Date.parse(s.createdAt))))
      for (const survey of limited) {
        const count = counts.get(survey.uuid) ?? 0
        if (count < survey.responsesLimit!) continue
        const now = this.clock.now().toISOString()
        // Read again: a stop or a new limit since the list stays.
        const saved = await this.surveys.update(teamId, survey.id, (current) =>
          limitedAndOn(current) && count >= current.responsesLimit! ? { endDate: now, responsesLimit: null } : {},
        )
        if (saved?.endDate === now) stopped.push(survey.uuid)
      }
    }
    return stopped
  }
}
