// What a retention query answers (compute.ts): declared once, for the insight routes, the OpenAPI document and
// the web app's types.
import { Type } from 'typebox'

/** One cohort of a retention (PostHog's RetentionResult): the actors counted in each interval from its start. */
export const RetentionCohort = Type.Object(
  {
    values: Type.Array(
      Type.Object({
        count: Type.Integer(),
        aggregation_value: Type.Optional(Type.Number({ description: 'With aggregationType sum or avg: the property summed (per actor).' })),
        label: Type.String(),
      }),
    ),
    label: Type.String({ description: 'The cohort’s period and index: "Day 0", "Week 3".' }),
    date: Type.String({ description: 'The cohort interval’s start, with the project’s offset.' }),
    breakdown_value: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'Retention cohort' },
)
