// What the project and personal API key routes answer: declared once, for the routes, the OpenAPI document
// and the web app's types.
import { Type } from 'typebox'

export const ProjectAnswer = Type.Object(
  {
    id: Type.Integer(),
    uuid: Type.Null(),
    organization: Type.String({ description: 'the organization’s uuid' }),
    name: Type.String(),
    api_token: Type.String(),
    timezone: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: true, description: 'A project, with its known settings.' },
)

export const Key = Type.Object({
  id: Type.String(),
  label: Type.String(),
  mask_value: Type.String(),
  scopes: Type.Array(Type.String()),
  scoped_teams: Type.Array(Type.Integer()),
  scoped_organizations: Type.Array(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
})
