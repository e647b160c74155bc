// ai/filters: a conversation about which recordings the user wants, turned into recording filters or a
// question back. The answer's shape is PostHog's (reference §4.6, its AI_FILTER_SCHEMA): every field is
// present, so a question carries an empty filter group and a filter an empty question. The prompt is Wren's.
import type { ChatMessage, JsonShape } from '../../platform/ai/chat'

export interface AiFilterAnswer {
  result: 'question' | 'filter'
  data: {
    question: string
    date_from: string
    date_to: string
    filter_group: { type: 'AND' | 'OR'; values: Array<{ type: 'AND' | 'OR'; values: PropertyFilter[] }> }
  }
}

interface PropertyFilter {
  key: string
  type: string
  value: string[]
  operator: string
}

const PROPERTY_TYPES = [
  'meta',
  'event',
  'person',
  'element',
  'session',
  'cohort',
  'recording',
  'log_entry',
  'group',
  'hogql',
  'data_warehouse',
  'data_warehouse_person_property',
]
const OPERATORS = [
  'exact',
  'is_not',
  'icontains',
  'not_icontains',
  'regex',
  'not_regex',
  'gt',
  'gte',
  'lt',
  'lte',
  'is_set',
  'is_not_set',
  'is_date_exact',
  'is_date_before',
  'is_date_after',
  'between',
  'not_between',
  'min',
  'max',
  'in',
  'not_in',
]

const closed = (properties: Record<string, unknown>) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
})
const andOr = { type: 'string', enum: ['AND', 'OR'] }

export const AI_FILTER_SHAPE: JsonShape = {
  name: 'recording_filters',
  schema: closed({
    result: { type: 'string', enum: ['question', 'filter'] },
    data: closed({
      question: { type: 'string' },
      date_from: { type: 'string' },
      date_to: { type: 'string' },
      filter_group: closed({
        type: andOr,
        values: {
          type: 'array',
          items: closed({
            type: andOr,
            values: {
              type: 'array',
              items: closed({
                key: { type: 'string' },
                type: { type: 'string', enum: PROPERTY_TYPES },
                value: { type: 'array', items: { type: 'string' } },
                operator: { type: 'string', enum: OPERATORS },
              }),
            },
          }),
        },
      }),
    }),
  }),
}

const RELATIVE_DATE = /^-\d{1,4}[hdwmy]$/
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/

/** Empty (no bound), a relative date (-7d, -24h, -2w, -3m, -1y), or an ISO date or date-time. */
const isDate = (v: string) => v === '' || RELATIVE_DATE.test(v) || (ISO_DATE.test(v) && !Number.isNaN(Date.parse(v)))

/** What the schema cannot say: a question asks something, a filter filters, dates are dates. */
export function checkFilterAnswer(answer: AiFilterAnswer): string | null {
  const { data } = answer
  if (answer.result === 'question' && data.question.trim() === '') return 'result is "question" but data.question is empty.'
  for (const field of ['date_from', 'date_to'] as const)
    if (!isDate(data[field])) return `data.${field} must be "" or a date such as -7d or 2024-05-01, got ${JSON.stringify(data[field])}.`
  return null
}

export function filterPrompt(messages: Array<{ role: 'user' | 'assistant'; content: string }>, now: Date): ChatMessage[] {
  const system = `You help someone find session recordings (replays of what visitors did on a website) by turning their request into filters for a recordings list. The current date-time is ${now.toISOString()}.

Answer with one JSON object: {"result": "filter" | "question", "data": {"question", "date_from", "date_to", "filter_group"}}. Every field is always present.

- When the request is clear enough to filter on, result is "filter", data.question is "", and data.filter_group holds the conditions. When it is ambiguous or you would have to guess what a word means (which page, which event, how long is "long"), result is "question", data.question asks the one thing you need to know, and data.filter_group is {"type": "AND", "values": []}.
- date_from and date_to bound when the recordings started: relative to now as "-<n>h", "-<n>d", "-<n>w", "-<n>m" or "-<n>y" (e.g. "-7d" for the last week), or an ISO date such as "2024-05-01". Use "" for date_to when the range runs up to now. Without any time in the request, use date_from "-7d" and date_to "".
- filter_group is {"type": "AND" | "OR", "values": [groups]}, each group {"type": "AND" | "OR", "values": [conditions]}, each condition {"key", "type", "value", "operator"}. "value" is always a list of strings (["5"], ["https://example.com/pricing"]); for is_set and is_not_set it is [].
- Condition types and keys:
  - "recording": what the replay itself measured: "duration", "active_seconds", "inactive_seconds" (seconds), "click_count", "keypress_count", "mouse_activity_count", "console_error_count", "console_warn_count", "console_log_count". Example: recordings longer than five minutes are {"key": "duration", "type": "recording", "value": ["300"], "operator": "gt"}.
  - "event": a property of an event that happened during the session, such as "$current_url", "$pathname", "$browser", "$os", "$device_type", "$referrer".
  - "person": a property of the visitor, such as "email" or "name".
  - "session": a property of the whole session, such as "$entry_current_url", "$entry_referring_domain" or "$session_duration".
  - "log_entry": the page's console output: key "level" (values "info", "warn", "error") or "message" (the text).
  - "cohort", "element", "group", "hogql" and the other types only when the user names one explicitly.
- Operators: "exact", "is_not", "icontains", "not_icontains", "regex", "not_regex", "gt", "gte", "lt", "lte", "is_set", "is_not_set", "is_date_exact", "is_date_before", "is_date_after", "between", "not_between", "min", "max", "in", "not_in". Prefer "icontains" for partial text such as part of a URL.

Never invent property names or values the user did not mention or clearly imply; ask instead.`
  return [{ role: 'system', content: system }, ...messages.map((m) => ({ role: m.role, content: m.content }))]
}
