// What the feature flag routes answer: declared once, for the routes, the OpenAPI document and the web app's types.
import { Type } from 'typebox'
import { AnyObject } from '../shared/http/schemas'

export const Flag = Type.Object(
  {
    id: Type.Integer(),
    key: Type.String(),
    name: Type.String(),
    filters: AnyObject(),
    active: Type.Boolean(),
    deleted: Type.Boolean(),
    version: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: true, description: 'PostHog’s FeatureFlagSerializer fields.' },
)
