// What the cohort routes answer: declared once, for the routes, the OpenAPI document and the web app's types.
// PostHog's CohortSerializer fields, with Wren's updated_at and team_id besides.
import { Type } from 'typebox'
import { AnyObject } from '../platform/http/schemas'

const Time = Type.String({ format: 'date-time' })

export const CohortAnswer = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  groups: Type.Array(Type.Unknown(), { description: 'PostHog’s older form of filters: always empty, the definition is in filters.' }),
  filters: AnyObject(),
  query: Type.Null({ description: 'Cohorts defined by a query: not in Wren.' }),
  version: Type.Integer({ description: 'The definition’s version: every change adds one.' }),
  pending_version: Type.Integer({ description: 'Members are counted when read, so never ahead of version.' }),
  is_static: Type.Boolean(),
  cohort_type: Type.Union([Type.Literal('static'), Type.Literal('person_property')]),
  is_calculating: Type.Boolean({ description: 'Always false: members are counted when the cohort is read.' }),
  last_calculation: Type.Union([Time, Type.Null()], { description: 'When the members were counted: this answer.' }),
  errors_calculating: Type.Integer({ description: '1 when the count could not be taken, else 0.' }),
  last_error_message: Type.Null(),
  count: Type.Union([Type.Integer(), Type.Null()], { description: 'Members now; null when the count could not be taken.' }),
  experiment_set: Type.Array(Type.Integer(), { description: 'Experiments using the cohort: none in Wren.' }),
  created_by: Type.Null({ description: 'Wren has keys, not users.' }),
  created_at: Time,
  updated_at: Time,
  deleted: Type.Boolean(),
  team_id: Type.Integer(),
})
