// Surveys: configuration objects (platform/config-objects.ts) with a uuid of their own, the id the API and posthog-js
// name them by. A write tells every process (decide shows the running ones, running.ts).
import { queryRows, type ClickHouseClient } from '../platform/clickhouse'
import { ConfigObjectStore, timestamp, type ConfigObjectKind } from '../platform/config-objects'
import type { Clock } from '../platform/clock'
import type { ConfigLog } from '../platform/log/config-log'

/** PostHog's Survey.SurveyType. */
export const SURVEY_TYPES = ['popover', 'widget', 'external_survey', 'api'] as const
export type SurveyType = (typeof SURVEY_TYPES)[number]
/** PostHog's Survey.Schedule. */
export const SURVEY_SCHEDULES = ['once', 'recurring', 'always'] as const
/** Most iterations a recurring survey may have (PostHog's MAX_ITERATION_COUNT). */
export const MAX_ITERATION_COUNT = 500

/** What a survey is besides its name, type and flags: kept as one JSON column. */
export interface SurveyDefinition {
  description: string
  schedule: string | null
  /** Each with its `id` (a uuid given on save when the caller sent none, as PostHog does). */
  questions: Array<Record<string, unknown>> | null
  conditions: Record<string, unknown> | null
  appearance: Record<string, unknown> | null
  /** ISO instants: launched at, stopped at (null: not launched, not stopped). */
  startDate: string | null
  endDate: string | null
  responsesLimit: number | null
  iterationCount: number | null
  iterationFrequencyDays: number | null
  enablePartialResponses: boolean | null
  /** The flag a person must have on to see it (any flag of the project). */
  linkedFlagId: number | null
  /** The flag made from `targeting_flag_filters` (or named by `targeting_flag_id`). */
  targetingFlagId: number | null
  /** The flag made with the survey: on for people who have neither answered nor dismissed it (PostHog's internal targeting flag). */
  internalTargetingFlagId: number | null
}

export interface Survey extends SurveyDefinition {
  id: number
  teamId: number
  uuid: string
  name: string
  type: SurveyType
  archived: boolean
  /** The user's uuid ('' for a key without a user). */
  createdBy: string
  createdAt: string
  updatedAt: string
  deleted: boolean
  version: number
}

export type SurveyFields = Pick<Survey, 'name' | 'type' | 'archived' | keyof SurveyDefinition>
export type NewSurvey = SurveyFields & Pick<Survey, 'createdBy' | 'uuid'>

const DEFINITION_KEYS: Array<keyof SurveyDefinition> = [
  'description',
  'schedule',
  'questions',
  'conditions',
  'appearance',
  'startDate',
  'endDate',
  'responsesLimit',
  'iterationCount',
  'iterationFrequencyDays',
  'enablePartialResponses',
  'linkedFlagId',
  'targetingFlagId',
  'internalTargetingFlagId',
]

const SURVEYS: ConfigObjectKind<Survey, SurveyFields, NewSurvey> = {
  table: 'surveys',
  object: 'survey',
  columns: ['uuid', 'name', 'type', 'definition', 'archived', 'created_by', 'updated_at'],
  create: (fields, now) => ({ ...fields, updatedAt: now }),
  touch: (survey, _current, now) => ({ ...survey, updatedAt: now }),
  toRow: (s) => ({
    uuid: s.uuid,
    name: s.name,
    type: s.type,
    definition: JSON.stringify(Object.fromEntries(DEFINITION_KEYS.map((k) => [k, s[k]]))),
    archived: s.archived ? 1 : 0,
    created_by: s.createdBy,
    updated_at: s.updatedAt,
  }),
  fromRow: (r) => ({
    ...(JSON.parse(r.definition as string) as SurveyDefinition),
    uuid: r.uuid as string,
    name: r.name as string,
    type: r.type as SurveyType,
    archived: Number(r.archived) === 1,
    createdBy: r.created_by as string,
    updatedAt: timestamp(r.updated_at),
  }),
  published: (s) => ({ kind: 'survey', record: s }),
}

export class SurveyStore extends ConfigObjectStore<Survey, SurveyFields, NewSurvey> {
  constructor(client: ClickHouseClient, clock: Clock, config: ConfigLog) {
    super(client, clock, config, SURVEYS)
  }

  /** The projects that have surveys (deleted ones included). */
  async teamsWithSurveys(): Promise<number[]> {
    const rows = await queryRows<{ team_id: string }>(this.client, 'SELECT DISTINCT team_id FROM surveys')
    return rows.map((r) => Number(r.team_id))
  }

  /** The project's survey of this uuid (deleted ones only with `includeDeleted`). */
  async byUuid(teamId: number, uuid: string, opts: { includeDeleted?: boolean } = {}): Promise<Survey | undefined> {
    return (await this.list(teamId, opts)).find((s) => s.uuid === uuid)
  }
}

/** Launched and not stopped nor archived: what posthog-js shows (PostHog's isSurveyRunning, archived ones left out). */
export function isRunning(s: Pick<Survey, 'startDate' | 'endDate' | 'archived' | 'deleted'>): boolean {
  return s.startDate !== null && s.endDate === null && !s.archived && !s.deleted
}

/**
 * PostHog's iterations of a recurring survey (update_survey_iterations): a start every `iterationFrequencyDays` from
 * the launch, `iterationCount` of them; the current one is the first until the schedule moves it on.
 */
export function iterations(s: Pick<Survey, 'startDate' | 'iterationCount' | 'iterationFrequencyDays'>): {
  startDates: string[] | null
  current: number | null
  currentStart: string | null
} {
  const count = s.iterationCount ?? 0
  const every = s.iterationFrequencyDays ?? 0
  if (count === 0 || every === 0) return { startDates: [], current: null, currentStart: null }
  if (s.startDate === null) return { startDates: null, current: null, currentStart: null }
  const start = Date.parse(s.startDate)
  const startDates = Array.from({ length: Math.min(count, MAX_ITERATION_COUNT) }, (_, i) =>
    new Date(start + i * every * 86_400_000).toISOString(),
  )
  return { startDates, current: 1, currentStart: s.startDate }
}
