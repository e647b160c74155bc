// What the insight and dashboard routes answer: declared once, for the routes, the OpenAPI document and the
// web app's types. PostHog's shapes (InsightSerializer, DashboardSerializer), with the fields Wren has.
import { Type } from 'typebox'
import { AnyObject } from '../shared/http/schemas'
import { TrendSeries } from '../trends/schemas'

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()])

export const InsightAnswer = Type.Object(
  {
    id: Type.Integer(),
    short_id: Type.String(),
    name: Nullable(Type.String()),
    derived_name: Type.Null(),
    description: Type.String(),
    query: Nullable(AnyObject()),
    filters: AnyObject(),
    dashboards: Type.Array(Type.Integer(), { description: 'The dashboards the insight is on.' }),
    dashboard_tiles: Type.Array(Type.Object({ id: Type.Integer(), dashboard_id: Type.Integer() })),
    result: Type.Optional(Nullable(Type.Array(TrendSeries))),
    last_refresh: Type.Optional(Nullable(Type.String({ description: 'When the result was computed.' }))),
    is_cached: Type.Optional(Type.Boolean()),
    timezone: Type.Optional(Nullable(Type.String())),
    result_unavailable: Type.Optional(Nullable(Type.String({ description: 'Why result is null: Wren computes trends insights only.' }))),
    saved: Type.Boolean(),
    favorited: Type.Boolean(),
    deleted: Type.Boolean(),
    tags: Type.Array(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
    created_by: Type.Null(),
    last_modified_at: Type.String({ format: 'date-time' }),
    last_modified_by: Type.Null(),
  },
  { title: 'Insight' },
)

export const TileAnswer = Type.Object({
  id: Type.Integer(),
  insight: Nullable(InsightAnswer),
  text: Nullable(Type.Object({ body: Type.String() })),
  layouts: AnyObject(),
  color: Nullable(Type.String()),
})

const DashboardFields = {
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  pinned: Type.Boolean(),
  filters: AnyObject('date_from, date_to: override every tile’s date range; properties: added to every tile’s.'),
  tags: Type.Array(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  created_by: Type.Null(),
  last_modified_at: Type.String({ format: 'date-time' }),
  deleted: Type.Boolean(),
}

export const DashboardBasicAnswer = Type.Object(DashboardFields, { title: 'Dashboard (list)' })
export const DashboardAnswer = Type.Object({ ...DashboardFields, tiles: Type.Array(TileAnswer) }, { title: 'Dashboard' })
