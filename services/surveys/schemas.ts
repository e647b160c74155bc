// What the survey routes answer, in PostHog's shapes (SurveySerializer; the stats of its survey_stats and
// global_stats): declared once, for the routes and the OpenAPI document.
import { Type } from 'typebox'

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()])
const Json = Type.Object({}, { additionalProperties: true })
/** PostHog's MinimalFeatureFlagSerializer. */
const MinimalFlag = Type.Object(
  { id: Type.Integer(), key: Type.String(), name: Type.String(), filters: Json, active: Type.Boolean(), deleted: Type.Boolean() },
  { additionalProperties: true },
)

export const SurveyAnswer = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    description: Type.String(),
    type: Type.Enum(['popover', 'widget', 'external_survey', 'api']),
    schedule: Nullable(Type.String()),
    linked_flag: Nullable(MinimalFlag),
    linked_flag_id: Nullable(Type.Integer()),
    targeting_flag: Nullable(MinimalFlag),
    internal_targeting_flag: Nullable(MinimalFlag),
    questions: Nullable(Type.Array(Json)),
    conditions: Nullable(Json),
    appearance: Nullable(Json),
    created_at: Type.String({ format: 'date-time' }),
    created_by: Nullable(Type.Object({ uuid: Type.String(), email: Type.String() }, { additionalProperties: true })),
    start_date: Nullable(Type.String({ format: 'date-time' })),
    end_date: Nullable(Type.String({ format: 'date-time' })),
    archived: Type.Boolean(),
    responses_limit: Nullable(Type.Integer()),
    feature_flag_keys: Type.Array(Type.Object({ key: Type.String(), value: Nullable(Type.String()) })),
    iteration_count: Nullable(Type.Integer()),
    iteration_frequency_days: Nullable(Type.Integer()),
    iteration_start_dates: Nullable(Type.Array(Type.String({ format: 'date-time' }))),
    current_iteration: Nullable(Type.Integer()),
    current_iteration_start_date: Nullable(Type.String({ format: 'date-time' })),
    response_sampling_start_date: Type.Null(),
    response_sampling_interval_type: Nullable(Type.String()),
    response_sampling_interval: Type.Null(),
    response_sampling_limit: Type.Null(),
    response_sampling_daily_limits: Type.Null(),
    enable_partial_responses: Nullable(Type.Boolean()),
    user_access_level: Type.String(),
  },
  { additionalProperties: true, description: 'A survey: questions posthog-js shows to the people its conditions and flags pick.' },
)

/** One event's figures (PostHog's EventStats). */
const EventStats = Type.Object({
  total_count: Type.Integer(),
  total_count_only_seen: Type.Integer(),
  unique_persons: Type.Integer(),
  unique_persons_only_seen: Type.Integer(),
  first_seen: Nullable(Type.String({ format: 'date-time' })),
  last_seen: Nullable(Type.String({ format: 'date-time' })),
})
const Rates = Type.Object({
  response_rate: Type.Number(),
  dismissal_rate: Type.Number(),
  unique_users_response_rate: Type.Number(),
  unique_users_dismissal_rate: Type.Number(),
})

/** `stats` is empty when the project has no survey that is not archived (PostHog's global stats). */
export const SurveyStatsAnswer = Type.Object(
  {
    stats: Type.Union([
      Type.Object({ 'survey shown': EventStats, 'survey dismissed': EventStats, 'survey sent': EventStats }),
      Type.Object({}),
    ]),
    rates: Rates,
  },
  { additionalProperties: true },
)

export const OneSurveyStatsAnswer = Type.Object({
  stats: Type.Object({ 'survey shown': EventStats, 'survey dismissed': EventStats, 'survey sent': EventStats }),
  rates: Rates,
  survey_id: Type.String(),
  start_date: Nullable(Type.String({ format: 'date-time' })),
  end_date: Nullable(Type.String({ format: 'date-time' })),
})
