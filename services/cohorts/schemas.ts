// What the cohort routes answer: declared once, for the routes, the OpenAPI document and the web app's types.
import { Type } from 'typebox'
import { AnyObject } from '../shared/http/schemas'

export const CohortAnswer = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  groups: Type.Array(Type.Unknown()),
  filters: AnyObject(),
  is_static: Type.Boolean(),
  is_calculating: Type.Boolean(),
  count: Type.Union([Type.Integer(), Type.Null()], { description: 'Members now; null when the count could not be taken.' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  deleted: Type.Boolean(),
  team_id: Type.Integer(),
})
