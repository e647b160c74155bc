// What Wren's API answers, as the app reads it: the types of the server's response schemas (the
// services' schemas.ts), so a schema change breaks this build instead of drifting from it. Type-only
// imports: esbuild erases them, and no server code reaches the bundle.
// Where a schema leaves a field open (AnyObject: steps, filters, settings), the app's reading of it is
// declared here, beside the schema's type.
import type { Static } from 'typebox'
import type { ActionAnswer } from '../../services/actions/schemas'
import type { DashboardAnswer, DashboardBasicAnswer, InsightAnswer, TileAnswer } from '../../services/insights/schemas'
import type { CohortAnswer } from '../../services/cohorts/schemas'
import type {
  EventDefinitionPage as EventDefinitionPageSchema,
  PropertyDefinitionPage as PropertyDefinitionPageSchema,
} from '../../services/definitions/schemas'
import type { Event, EventPage as EventPageSchema } from '../../services/events/schemas'
import type { Flag as FlagSchema } from '../../services/flags/schemas'
import type { Person as PersonSchema, PropertiesTimeline as TimelineSchema } from '../../services/persons/schemas'
import type { Key, ProjectAnswer } from '../../services/projects/schemas'
import type { InviteAnswer, MemberAnswer, UserAnswer } from '../../services/accounts/schemas'
import type {
  Recording as RecordingSchema,
  RecordingPage as RecordingPageSchema,
  Sharing as SharingSchema,
} from '../../services/recordings/schemas'
import type { Paginated as PaginatedSchema } from '../../services/platform/http/schemas'
import type { TrendAnswer as TrendAnswerSchema, TrendSeries as TrendSeriesSchema } from '../../services/query/kinds/trends/schemas'
import type { PropertyFilter } from './api'

/** DRF's limit/offset page (count, next, previous) of `Item`s. */
export type Paginated<Item> = Omit<Static<ReturnType<typeof PaginatedSchema>>, 'results'> & { results: Item[] }

/** A project; of its settings (open in the schema) the app reads these. */
export type Project = Static<typeof ProjectAnswer> & {
  test_account_filters?: PropertyFilter[]
  session_recording_opt_in?: boolean
  capture_console_log_opt_in?: boolean
  recording_domains?: string[]
  app_urls?: string[]
  /** The dashboard the app opens on (services/insights/home.ts gives every project one). */
  primary_dashboard?: number | null
}

export type KeyInfo = Static<typeof Key>
/** The signed-in user (GET /api/users/@me/), an organization's member and an invitation. */
export type Me = Static<typeof UserAnswer>
export type Member = Static<typeof MemberAnswer>
export type Invite = Static<typeof InviteAnswer>

/** How a step's URL, text or href is matched (services/actions/match.ts). */
export type Matching = 'contains' | 'exact' | 'regex'

/** An action step as the app edits it (the schema leaves steps open); text, href and selector match `$autocapture` events. */
export interface Step {
  event?: string | null
  url?: string | null
  url_matching?: Matching | null
  text?: string | null
  text_matching?: Matching | null
  href?: string | null
  href_matching?: Matching | null
  selector?: string | null
  tag_name?: string | null
  properties?: PropertyFilter[]
}
export type Action = Omit<Static<typeof ActionAnswer>, 'steps'> & { steps: Step[] }

/** A cohort; of its filters (open in the schema) the app reads the top group of properties. */
export type Cohort = Omit<Static<typeof CohortAnswer>, 'filters'> & {
  filters: { properties?: { type?: string; values?: unknown[] } }
}

export type WrenEvent = Static<typeof Event>
export type EventPage = Static<typeof EventPageSchema>

/** An event as an EventsQuery's `*` column holds it (services/query/kinds/events/). */
export interface QueriedEvent {
  uuid: string
  event: string
  distinct_id: string
  properties: Record<string, unknown>
  timestamp: string
}
/** The Query API's answer to the events page's EventsQuery: rows of [`*`, `person_id`]. */
export interface EventsQueryAnswer {
  results: Array<[QueriedEvent, string]>
  columns: string[]
  hasMore: boolean
}

/** A flag's condition set and variant as the app edits them (the schema leaves filters open). */
export interface Group {
  properties: PropertyFilter[]
  rollout_percentage: number | null
  variant?: string | null
}
export interface Variant {
  key: string
  name?: string
  rollout_percentage: number
}
export type Flag = Omit<Static<typeof FlagSchema>, 'filters'> & {
  filters: {
    groups?: Group[]
    multivariate?: { variants: Variant[] } | null
    payloads?: Record<string, unknown>
  }
}

export type Person = Static<typeof PersonSchema>
export type PropertiesTimeline = Static<typeof TimelineSchema>

export type Recording = Static<typeof RecordingSchema>
export type RecordingPage = Static<typeof RecordingPageSchema>
export type Sharing = Static<typeof SharingSchema>

export type TrendAnswer = Static<typeof TrendAnswerSchema>
export type TrendSeries = Static<typeof TrendSeriesSchema>

export type EventDefinitionPage = Static<typeof EventDefinitionPageSchema>
export type PropertyDefinitionPage = Static<typeof PropertyDefinitionPageSchema>

/** A saved insight; its query (open in the schema) is read by web/src/insight-query.ts. */
export type Insight = Static<typeof InsightAnswer>
export type DashboardSummary = Static<typeof DashboardBasicAnswer>
export type Dashboard = Omit<Static<typeof DashboardAnswer>, 'filters'> & {
  filters: { date_from?: string | null; date_to?: string | null; properties?: unknown }
}
export type Tile = Static<typeof TileAnswer>
