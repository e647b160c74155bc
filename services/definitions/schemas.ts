// What the definition routes answer (PostHog's /event_definitions/ and /property_definitions/ shapes),
// declared once for the routes, the OpenAPI document and the web app's types.
import { Type } from 'typebox'
import { Paginated, Uuid } from '../platform/http/schemas'

const Time = Type.Union([Type.String({ format: 'date-time' }), Type.Null()])

export const EventDefinition = Type.Object({
  id: Uuid,
  name: Type.String(),
  /** When ingestion first saw the event. */
  created_at: Time,
  last_seen_at: Time,
  /** Events of this name in the 30 days before now (counted when the page is read). */
  volume_30_day: Type.Union([Type.Integer(), Type.Null()]),
  query_usage_30_day: Type.Null(),
  tags: Type.Array(Type.String()),
})

export const PropertyType = Type.Union([
  Type.Literal('DateTime'),
  Type.Literal('String'),
  Type.Literal('Numeric'),
  Type.Literal('Boolean'),
  Type.Literal('Duration'),
  Type.Null(),
])

export const PropertyDefinition = Type.Object({
  id: Uuid,
  name: Type.String(),
  is_numerical: Type.Boolean(),
  property_type: PropertyType,
  tags: Type.Array(Type.String()),
  /** With `event_names`: whether the property was seen on one of those events; null without. */
  is_seen_on_filtered_events: Type.Union([Type.Boolean(), Type.Null()]),
})

export const EventDefinitionPage = Paginated(EventDefinition)
export const PropertyDefinitionPage = Paginated(PropertyDefinition)
