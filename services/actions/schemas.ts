// What the action routes answer: declared once, for the routes, the OpenAPI document and the web app's types.
import { Type } from 'typebox'
import { AnyObject } from '../platform/http/schemas'

export const ActionAnswer = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  tags: Type.Array(Type.String()),
  steps: Type.Array(AnyObject()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  deleted: Type.Boolean(),
  is_calculating: Type.Boolean(),
  team_id: Type.Integer(),
})
