// What the annotation routes answer, in PostHog's AnnotationSerializer's shape: declared once, for the routes and
// the OpenAPI document.
import { Type } from 'typebox'
import { UserBasic } from '../platform/http/schemas'

export const AnnotationAnswer = Type.Object(
  {
    id: Type.Integer(),
    content: Type.String(),
    date_marker: Type.String({ format: 'date-time' }),
    creation_type: Type.Enum(['USR', 'GIT']),
    dashboard_item: Type.Union([Type.Integer(), Type.Null()]),
    dashboard_id: Type.Union([Type.Integer(), Type.Null()]),
    dashboard_name: Type.Union([Type.String(), Type.Null()]),
    insight_short_id: Type.Union([Type.String(), Type.Null()]),
    insight_name: Type.Union([Type.String(), Type.Null()]),
    insight_derived_name: Type.Union([Type.String(), Type.Null()]),
    created_by: Type.Union([UserBasic, Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    deleted: Type.Boolean(),
    scope: Type.String(),
  },
  { additionalProperties: true, description: 'An annotation: a note at a moment, shown on charts.' },
)
