// What the insight and dashboard routes answer: declared once, for the routes, the OpenAPI document and the
// web app's types. PostHog's shapes (InsightSerializer, DashboardSerializer), with the fields Wren has.
import { Type } from 'typebox'
import { AnyObject } from '../platform/http/schemas'
import { TrendSeries } from '../query/kinds/trends/schemas'
import { FunnelStep, FunnelTimeToConvert, FunnelTrend } from '../query/kinds/funnels/schemas'
import { PathsLink } from '../query/kinds/paths/schemas'
import { LifecycleSeries } from '../query/kinds/lifecycle/schemas'
import { StickinessSeries } from '../query/kinds/stickiness/schemas'
import { RetentionCohort } from '../query/kinds/retention/schemas'

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T, options?: { description: string }) =>
  Type.Union([t, Type.Null()], options)

const Time = Type.String({ format: 'date-time' })
const Level = (description: string) => Type.Union([Type.Literal(21), Type.Literal(37)], { description })

export const InsightAnswer = Type.Object(
  {
    id: Type.Integer(),
    short_id: Type.String(),
    name: Nullable(Type.String()),
    derived_name: Type.Null(),
    description: Type.String(),
    query: Nullable(AnyObject()),
    filters: AnyObject(),
    filters_hash: Type.String({ description: 'Identifies the insight’s query and filters.' }),
    order: Type.Null({ description: 'Insights are listed by id: no order of their own.' }),
    dashboards: Type.Array(Type.Integer(), { description: 'The dashboards the insight is on.' }),
    dashboard_tiles: Type.Array(Type.Object({ id: Type.Integer(), dashboard_id: Type.Integer(), deleted: Type.Boolean() })),
    result: Nullable(
      Type.Union([
        Type.Array(TrendSeries),
        Type.Array(LifecycleSeries),
        Type.Array(StickinessSeries),
        Type.Array(FunnelStep),
        Type.Array(Type.Array(FunnelStep)),
        Type.Array(FunnelTrend),
        Type.Array(RetentionCohort),
        FunnelTimeToConvert,
        Type.Array(PathsLink),
        Type.Array(Type.Array(Type.Unknown(), { description: 'A row, in `columns` order.' })),
      ]),
      {
        description:
          'Computed when one insight is read: a trend’s series, a lifecycle’s four statuses, a stickiness’s series, a funnel’s steps (a list per breakdown value), conversion trend or time to convert, a paths chart’s edges, a retention’s cohort rows, or a SQL insight’s rows; null in lists and after a write.',
      },
    ),
    last_refresh: Nullable(Time, { description: 'When the result was computed.' }),
    is_cached: Type.Boolean(),
    timezone: Nullable(Type.String()),
    result_unavailable: Type.Optional(
      Nullable(Type.String({ description: 'Why result is null: a kind Wren does not compute yet, or a query that failed.' })),
    ),
    hasMore: Type.Union([Type.Boolean(), Type.Null()]),
    columns: Type.Union([Type.Array(Type.Unknown()), Type.Null()]),
    cache_target_age: Type.Union([Type.String(), Type.Null()], {
      description: 'When the result counts as stale (PostHog’s thresholds by interval), or sooner if the project’s data changes.',
    }),
    next_allowed_client_refresh: Type.Union([Type.String(), Type.Null()]),
    query_status: Type.Union([AnyObject('The background computation of a stale or missing result (?refresh=async).'), Type.Null()]),
    hogql: Type.Union([Type.String(), Type.Null()]),
    types: Type.Union([Type.Array(Type.Unknown()), Type.Null()]),
    saved: Type.Boolean(),
    favorited: Type.Boolean(),
    deleted: Type.Boolean(),
    is_sample: Type.Boolean(),
    tags: Type.Array(Type.String()),
    created_at: Time,
    created_by: Type.Null(),
    updated_at: Type.String({ format: 'date-time', description: 'The last write of any kind (favorited, tags, deleted, …).' }),
    last_modified_at: Type.String({ format: 'date-time', description: 'The last change to its name, description, filters or query.' }),
    last_modified_by: Type.Null(),
    effective_restriction_level: Level('21: everyone in the project can edit.'),
    effective_privilege_level: Level('37: the key can edit (it holds insight:write); 21: it can view.'),
  },
  { title: 'Insight' },
)

export const TileAnswer = Type.Object({
  id: Type.Integer(),
  insight: Nullable(InsightAnswer),
  text: Nullable(Type.Object({ body: Type.String() })),
  button_tile: Type.Null(),
  layouts: AnyObject(),
  color: Nullable(Type.String()),
  filters_overrides: AnyObject('Filters of this tile only: none in Wren.'),
  show_description: Type.Null(),
  transparent_background: Type.Null(),
  order: Type.Integer({ description: 'The tile’s place on the dashboard, from 0.' }),
  last_refresh: Nullable(Time),
  is_cached: Type.Boolean(),
})

const DashboardFields = {
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  pinned: Type.Boolean(),
  filters: AnyObject('date_from, date_to: override every tile’s date range; properties: added to every tile’s.'),
  tags: Type.Array(Type.String()),
  created_at: Time,
  created_by: Type.Null(),
  last_modified_at: Time,
  last_accessed_at: Type.Null(),
  last_viewed_at: Type.Null(),
  last_refresh: Nullable(Time, { description: 'The latest of its tiles’ results; null in lists.' }),
  is_shared: Type.Boolean({ description: 'Dashboards are not shared publicly in Wren.' }),
  deleted: Type.Boolean(),
  creation_mode: Type.Literal('default'),
  restriction_level: Level('21: everyone in the project can edit.'),
  effective_restriction_level: Level('21: everyone in the project can edit.'),
  effective_privilege_level: Level('37: the key can edit (it holds dashboard:write); 21: it can view.'),
  user_access_level: Type.Union([Type.Literal('editor'), Type.Literal('viewer')]),
  access_control_version: Type.Literal('v2'),
  team_id: Type.Integer(),
}

export const DashboardBasicAnswer = Type.Object(DashboardFields, { title: 'Dashboard (list)' })
export const DashboardAnswer = Type.Object(
  {
    ...DashboardFields,
    variables: AnyObject(),
    persisted_filters: Nullable(AnyObject()),
    persisted_variables: Type.Null(),
    breakdown_colors: Type.Array(Type.Unknown()),
    data_color_theme_id: Type.Null(),
    quick_filter_ids: Type.Array(Type.String()),
    tiles: Type.Array(TileAnswer),
  },
  { title: 'Dashboard' },
)
