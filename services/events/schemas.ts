// What the event routes answer: declared once, for the routes, the OpenAPI document and the web app's types.
import { Type } from 'typebox'
import { AnyObject, Uuid } from '../platform/http/schemas'

export const Event = Type.Object({
  id: Uuid,
  distinct_id: Type.String(),
  properties: AnyObject(),
  event: Type.String(),
  timestamp: Type.String({ format: 'date-time' }),
  person: Type.Null(),
  person_id: Uuid,
  elements: Type.Array(Type.Unknown()),
  elements_chain: Type.String(),
})

/** The list's page: `next` pages further back in time. */
export const EventPage = Type.Object({ next: Type.Union([Type.String(), Type.Null()]), results: Type.Array(Event) })
