// What a lifecycle answers (compute.ts): declared once, for the insight routes, the OpenAPI document and the
// web app's types.
import { Type } from 'typebox'
import { AnyObject } from '../../../platform/http/schemas'

/** One status of a lifecycle: the actors of that status per period (dormant negative). */
export const LifecycleSeries = Type.Object(
  {
    action: AnyObject(),
    data: Type.Array(Type.Number()),
    count: Type.Number(),
    labels: Type.Array(Type.String()),
    days: Type.Array(Type.String()),
    label: Type.String(),
    status: Type.Enum(['new', 'returning', 'resurrecting', 'dormant']),
  },
  { title: 'Lifecycle series' },
)
