// What the trend routes answer: declared once, for the routes, the OpenAPI document and the web app's types.
import { Type } from 'typebox'
import { AnyObject } from '../../../platform/http/schemas'

/** One series of a trend (shape.ts's SeriesResult): a value per bucket, or one aggregated value. */
export const TrendSeries = Type.Object(
  {
    data: Type.Array(Type.Number()),
    labels: Type.Optional(Type.Array(Type.String())),
    days: Type.Array(Type.String()),
    count: Type.Number(),
    aggregated_value: Type.Optional(Type.Number()),
    label: Type.String(),
    filter: AnyObject(),
    action: Type.Union([AnyObject(), Type.Null()]),
    order: Type.Integer(),
    breakdown_value: Type.Optional(Type.Union([Type.String(), Type.Number(), Type.Array(Type.String())])),
    compare: Type.Optional(Type.Boolean()),
    compare_label: Type.Optional(Type.Enum(['current', 'previous'])),
  },
  { title: 'Trend series' },
)

export const TrendAnswer = Type.Object({
  is_cached: Type.Boolean(),
  last_refresh: Type.String(),
  timezone: Type.String(),
  result: Type.Array(TrendSeries),
  next: Type.Union([Type.String(), Type.Null()]),
})
