// What a stickiness answers (compute.ts): declared once, for the insight routes, the OpenAPI document and the
// web app's types.
import { Type } from 'typebox'
import { AnyObject } from '../../../platform/http/schemas'

/** One series of a stickiness: the actors active on exactly (or at least) N intervals, N = 1 … n. */
export const StickinessSeries = Type.Object(
  {
    count: Type.Number(),
    data: Type.Array(Type.Number()),
    days: Type.Array(Type.Integer()),
    label: Type.String(),
    labels: Type.Array(Type.String()),
    action: AnyObject(),
    compare: Type.Optional(Type.Boolean()),
    compare_label: Type.Optional(Type.Enum(['current', 'previous'])),
  },
  { title: 'Stickiness series' },
)
