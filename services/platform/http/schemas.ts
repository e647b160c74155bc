// Schemas more than one route group declares: paging, ?format, ids, the error body and list envelopes.
import { Type, type TSchema } from 'typebox'
import { ERROR_CODE_KEYWORD, RECORD_ID_KEYWORD } from './validation'

/**
 * `?limit`: the same rule on every list route. An integer from 1 to the route's maximum; anything else,
 * above the maximum included, is a 400 naming `limit` (never silently clamped). Empty means not given.
 */
export const Limit = (defaultLimit: number, max: number) =>
  Type.Integer({
    minimum: 1,
    maximum: max,
    default: defaultLimit,
    description: `How many results to return, 1 to ${max} (default ${defaultLimit}).`,
  })
/** The largest `?limit` of the lists that page a whole list in memory (flags, insights, dashboards, actions, cohorts). */
export const MAX_LIST_LIMIT = 1000
/**
 * `?offset`: how many results to skip, from 0 to a maximum, or a 400 naming `offset`. Each list takes up
 * to MAX_OFFSET (a list further than that is read by its filters, and ClickHouse's UInt32 parameters
 * wrapped larger offsets round to the first page); the events list less, as PostHog's (its `next` pages by
 * time instead, without limit).
 */
const offsetRange = (max: number) => ({ minimum: 0, maximum: max, description: `How many results to skip, 0 to ${max}.` })
export const OffsetUpTo = (max: number) => Type.Integer({ ...offsetRange(max), default: 0 })
export const MAX_OFFSET = 10_000_000
export const Offset = OffsetUpTo(MAX_OFFSET)
/** `?limit` and `?offset` of a list (read by request-url.ts pageRequest). */
export const Paging = (defaultLimit: number, maxLimit: number) => ({
  limit: Type.Optional(Limit(defaultLimit, maxLimit)),
  offset: Type.Optional(Offset),
})
/** `?search`, `?limit` and `?offset` of a list paged in memory (request-url.ts pageOfList), `search` matching `searched`. */
export const ListPaging = (searched: string) => ({
  search: Type.Optional(Type.String({ description: `Matches ${searched}, any case.` })),
  ...Paging(100, MAX_LIST_LIMIT),
})
/** An activity log's `?limit`, and its page as PostHog counts it (`?page`, from 1) or an `?offset`. */
export const ActivityPaging = (maxLimit: number) => ({
  limit: Type.Optional(Limit(10, maxLimit)),
  page: Type.Optional(Type.Integer({ minimum: 1, description: 'Which page of results, from 1 (default), or send offset.' })),
  offset: Type.Optional(Type.Integer(offsetRange(MAX_OFFSET))),
})

/** `?format=csv` (or `Accept: text/csv`) answers CSV with nested fields flattened to dotted columns. */
export const Format = Type.Enum(['json', 'csv'], { description: 'json (default) or csv.', [ERROR_CODE_KEYWORD]: 'invalid_format' })

/**
 * A path parameter naming a record by id: a string, looked up by its route (an unknown id is a 404); one
 * that reads as a number past 2^53 is a 404 before the route looks (no record has it, and it cannot be
 * sent to ClickHouse).
 */
export const RecordId = (description: string) => Type.String({ description, [RECORD_ID_KEYWORD]: true })

export const Uuid = Type.String({ format: 'uuid', description: 'a uuid' })

/** PostHog's error body, for every refusal. */
export const ErrorBody = Type.Object(
  {
    type: Type.Enum(['validation_error', 'authentication_error', 'invalid_request', 'throttled_error', 'server_error']),
    code: Type.String({ description: 'A stable code from Wren’s error catalogue.' }),
    detail: Type.String(),
    attr: Type.Union([Type.String(), Type.Null()], { description: 'The field the error is about, if any.' }),
  },
  { title: 'Error' },
)

/** Any JSON object; the route checks its fields itself (nested filters, steps, remote config). */
export const AnyObject = (description?: string) => Type.Record(Type.String(), Type.Unknown(), description ? { description } : {})

/** A raw body the route decodes itself (SDK payloads: JSON, gzip, base64, lz64, forms). */
export const RawBody = (description: string) => Type.Unknown({ description, 'x-raw': true })

/** What the SDKs send bodies as (capture and decide read every body as bytes and decode it themselves). */
export const SDK_CONTENT_TYPES = ['application/json', 'text/plain', 'application/x-www-form-urlencoded']

/** DRF's limit/offset page. */
export const Paginated = <T extends TSchema>(item: T) =>
  Type.Object({
    count: Type.Integer(),
    next: Type.Union([Type.String(), Type.Null()]),
    previous: Type.Union([Type.String(), Type.Null()]),
    results: Type.Array(item),
  })

/** The activity log's page (person and flag activity). */
export const ActivityPage = Type.Object({
  results: Type.Array(AnyObject()),
  next: Type.Union([Type.String(), Type.Null()]),
  previous: Type.Union([Type.String(), Type.Null()]),
  total_count: Type.Integer(),
})

export const Success = Type.Object({ success: Type.Boolean() })
export const NoContent = Type.Null({ description: 'No content.' })

/** A user as PostHog's UserBasicSerializer shows one: who made an annotation, an invitation, an experiment, …; a member. */
export const UserBasic = Type.Object(
  {
    id: Type.Integer(),
    uuid: Type.String(),
    distinct_id: Type.String(),
    first_name: Type.String(),
    last_name: Type.String(),
    email: Type.String(),
    is_email_verified: Type.Union([Type.Boolean(), Type.Null()]),
  },
  { additionalProperties: true },
)
