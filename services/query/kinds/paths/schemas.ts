// What paths answer (compute.ts): declared once, for the insight routes, the OpenAPI document and the web app's types.
import { Type } from 'typebox'

/** One edge of a paths chart (PostHog's PathsLink): step-numbered items, the sessions that took it, the average milliseconds between. */
export const PathsLink = Type.Object(
  {
    source: Type.String({ description: 'The step before, numbered: "1_/home".' }),
    target: Type.String({ description: 'The step, numbered: "2_/pricing".' }),
    value: Type.Integer({ description: 'Sessions that took this edge.' }),
    average_conversion_time: Type.Number({ description: 'Average milliseconds between the two steps.' }),
  },
  { title: 'Paths link' },
)
