// What a funnel answers (compute.ts), per viz type: declared once, for the insight routes, the OpenAPI
// document and the web app's types.
import { Type } from 'typebox'

const Seconds = Type.Union([Type.Number(), Type.Null()])
const BreakdownValue = Type.Union([Type.String(), Type.Number(), Type.Array(Type.String())])

/** One step of a funnel (steps viz): the actors who reached it, and the seconds from the step before. */
export const FunnelStep = Type.Object(
  {
    action_id: Type.Union([Type.String(), Type.Number(), Type.Null()]),
    name: Type.Union([Type.String(), Type.Null()]),
    custom_name: Type.Union([Type.String(), Type.Null()]),
    order: Type.Integer(),
    count: Type.Integer(),
    type: Type.Enum(['events', 'actions']),
    people: Type.Array(Type.Unknown()),
    average_conversion_time: Seconds,
    median_conversion_time: Seconds,
    breakdown: Type.Optional(BreakdownValue),
    breakdown_value: Type.Optional(BreakdownValue),
  },
  { title: 'Funnel step' },
)

/** A funnel's time to convert: `bins` of [seconds from, actors], and the average seconds. */
export const FunnelTimeToConvert = Type.Object(
  {
    bins: Type.Array(Type.Array(Type.Number())),
    average_conversion_time: Seconds,
  },
  { title: 'Funnel time to convert' },
)

/** A funnel's conversion trend: the conversion rate (%) of each period's entrants. */
export const FunnelTrend = Type.Object(
  {
    count: Type.Integer(),
    data: Type.Array(Type.Number()),
    days: Type.Array(Type.String()),
    labels: Type.Array(Type.String()),
    breakdown_value: Type.Optional(BreakdownValue),
  },
  { title: 'Funnel conversion trend' },
)
