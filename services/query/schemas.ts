// What the Query API's routes take and answer: declared once, for the routes and the OpenAPI document.
import { Type } from 'typebox'
import { AnyObject, ErrorBody } from '../platform/http/schemas'
import { REFRESH_MODES } from './runner'

/** PostHog's QueryRequest. */
export const QueryRequestBody = Type.Object({
  query: AnyObject(
    'The query node, with its `kind` (e.g. {"kind": "TrendsQuery", "series": [...]}); DataTableNode, DataVisualizationNode and InsightVizNode run their `source`.',
  ),
  client_query_id: Type.Optional(
    Type.Union([Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_.:-]+$' }), Type.Null()], {
      description: 'The id of this run: the id of its asynchronous job (GET and DELETE …/query/:id/). A new one when absent.',
    }),
  ),
  refresh: Type.Optional(
    Type.Union([Type.Enum([...REFRESH_MODES]), Type.Boolean(), Type.Null()], {
      description:
        'blocking (default): the cached answer unless stale, else computed now. async / lazy_async: a stale or missing answer is computed in the background (202 with query_status; lazy_async waits longer before calling an answer stale). async_except_on_cache_miss: like async, but computes a missing answer now. force_blocking (or true): computed now. force_async: computed in the background. force_cache: as blocking here.',
    }),
  ),
  async: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'Deprecated: true is refresh: async.' })),
  filters_override: Type.Optional(
    Type.Union([
      AnyObject(
        'A dashboard’s filters: properties (ANDed), date_from/date_to/explicitDate, breakdown_filter, interval, filterTestAccounts.',
      ),
      Type.Null(),
    ]),
  ),
  variables_override: Type.Optional(Type.Union([AnyObject('SQL variable values by variable id: {"<id>": {"value": …}}.'), Type.Null()])),
  name: Type.Optional(Type.Union([Type.String({ maxLength: 128 }), Type.Null()], { description: 'A name for the run (a query tag).' })),
  limit_context: Type.Optional(Type.Union([Type.Literal('posthog_ai'), Type.Null()])),
})

/** PostHog's QueryStatus. */
export const QueryStatusSchema = Type.Object(
  {
    id: Type.String(),
    team_id: Type.Integer(),
    query_async: Type.Literal(true),
    insight_id: Type.Union([Type.Integer(), Type.Null()]),
    dashboard_id: Type.Union([Type.Integer(), Type.Null()]),
    complete: Type.Boolean(),
    error: Type.Boolean(),
    error_message: Type.Union([Type.String(), Type.Null()]),
    results: Type.Union([AnyObject('The whole answer, as a blocking request gets it.'), Type.Null()]),
    start_time: Type.String(),
    pickup_time: Type.Union([Type.String(), Type.Null()]),
    end_time: Type.Union([Type.String(), Type.Null()]),
    expiration_time: Type.String(),
    task_id: Type.Union([Type.String(), Type.Null()]),
    query_progress: Type.Null(),
    labels: Type.Union([Type.Array(Type.String()), Type.Null()]),
  },
  { title: 'Query status' },
)

/**
 * A query's answer: the kind's fields (`results`, and e.g. `columns`, `types`, `hasMore`) in PostHog's
 * envelope; while a job computes it, `query_status` (with `cache_key`, or a stale cached answer).
 */
export const QueryAnswer = Type.Object(
  {
    results: Type.Optional(Type.Unknown()),
    is_cached: Type.Optional(Type.Boolean()),
    last_refresh: Type.Optional(Type.String()),
    next_allowed_client_refresh: Type.Optional(Type.String()),
    cache_key: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    cache_target_age: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    timezone: Type.Optional(Type.String()),
    query_status: Type.Optional(Type.Union([QueryStatusSchema, Type.Null()])),
  },
  { additionalProperties: true, title: 'Query answer' },
)

export const QueryStatusAnswer = Type.Object({ query_status: QueryStatusSchema })
/** GET …/query/:id/ of a failed job: its status (400 with a message, 500 without), or a refusal. */
export const FailedStatusAnswer = Type.Union([QueryStatusAnswer, ErrorBody])
export const CancelAnswer = Type.Object({ message: Type.String() })
