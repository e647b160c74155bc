// What the person routes answer: declared once, for the routes, the OpenAPI document and the web app's types.
import { Type } from 'typebox'
import { ACCESS_LEVELS } from '../platform/http/access-controls'
import { AnyObject, Uuid } from '../platform/http/schemas'

export const Person = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  distinct_ids: Type.Array(Type.String()),
  properties: AnyObject(),
  created_at: Type.String({ format: 'date-time' }),
  uuid: Uuid,
  is_identified: Type.Boolean(),
  user_access_level: Type.Enum(ACCESS_LEVELS),
})

/** properties_timeline's answer (timeline.ts): a point where the relevant properties changed, with how many events kept them. */
export const PropertiesTimeline = Type.Object({
  points: Type.Array(
    Type.Object({
      timestamp: Type.String(),
      properties: AnyObject(),
      relevant_event_count: Type.Integer(),
    }),
  ),
  crucial_property_keys: Type.Array(Type.String()),
  effective_date_from: Type.Union([Type.String(), Type.Null()]),
  effective_date_to: Type.Union([Type.String(), Type.Null()]),
})
