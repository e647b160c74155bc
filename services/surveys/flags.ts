// What surveys need of feature flags, handed in by the runtime (flags are a feature of their own): a flag's key,
// variants and minimal shape, and the targeting flag a survey makes, updates and deletes through flag management.

/** PostHog's prefix of a survey's targeting flag key (SURVEY_TARGETING_FLAG_PREFIX). */
export const TARGETING_FLAG_PREFIX = 'survey-targeting-'

export interface SurveyFlags {
  /** The project's flag (not deleted) as PostHog's MinimalFeatureFlagSerializer shows it, or null. */
  minimal(teamId: number, id: number): (Record<string, unknown> & { key: string }) | null
  /** The flag's variant keys ([] for a flag without variants), or null when there is no such flag. */
  variants(teamId: number, id: number): string[] | null
  /** A new flag (its validation's refusals are the caller's 400s); its id. */
  create(teamId: number, flag: { key: string; name: string; filters: unknown; active: boolean }, actor: string): Promise<number>
  /** Changes a flag's filters, whether it is on, or deletes it (deleted: true). */
  update(teamId: number, id: number, change: { filters?: unknown; active?: boolean; deleted?: boolean }, actor: string): Promise<void>
}

/** A targeting flag's key as PostHog makes one: the prefix and ten random hexadecimal digits. */
export function targetingFlagKey(): string {
  const digits = Array.from({ length: 10 }, () => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join('')
  return `${TARGETING_FLAG_PREFIX}${digits}`
}

/**
 * The filters of a survey's internal targeting flag, as PostHog makes them: people without the person properties
 * posthog-js sets when they dismiss or answer it (`$survey_dismissed/<id>`, `$survey_responded/<id>`, with
 * `/<iteration>` for a recurring survey), so no one is asked again, on any device.
 */
export function interactedFilters(surveyId: string, iteration: number | null, iterationCount: number | null): Record<string, unknown> {
  const key = iterationCount ? `${surveyId}/${iteration ?? 1}` : surveyId
  const notSet = (property: string) => ({ key: `${property}/${key}`, value: 'is_not_set', operator: 'is_not_set', type: 'person' })
  return { groups: [{ variant: null, rollout_percentage: 100, properties: [notSet('$survey_dismissed'), notSet('$survey_responded')] }] }
}
