// A survey's fields as PostHog's SurveySerializerCreateUpdateOnly checks them, with its messages: questions (each
// with its text, a type posthog-js renders, choices for the choice types, a link of https or mailto), conditions
// and appearance as objects, the schedule, the linked flag's variant, targeting that is not everyone, and what an
// external survey may not have. Every refusal is a 400 naming the field.
import { randomUUID } from 'node:crypto'
import { wrenError } from '../platform/errors'
import { isRecord } from '../platform/json'
import { SURVEY_SCHEDULES } from './store'

/** posthog-js's SurveyQuestionType. */
export const QUESTION_TYPES = ['open', 'link', 'rating', 'single_choice', 'multiple_choice'] as const
const BRANCHING_TYPES = ['next_question', 'end', 'response_based', 'specific_question']
const CONTENT_TYPES = ['text', 'html']
const EMAIL_LINK = /^mailto:[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$/
/** Fields and conditions an external survey (a page of its own, no SDK) has no use for: PostHog refuses them. */
const NOT_FOR_EXTERNAL = ['linked_flag_id', 'targeting_flag_filters'] as const
const CONDITIONS_NOT_FOR_EXTERNAL = [
  'url',
  'urlMatchType',
  'selector',
  'seenSurveyWaitPeriodInDays',
  'linkedFlagVariant',
  'deviceTypes',
  'deviceTypesMatchType',
]

const invalid = (detail: string, attr: string) => wrenError('invalid_input', detail, attr)

/** The questions as stored: each checked, each with an id (kept when sent, a new uuid otherwise). */
export function validQuestions(value: unknown): Array<Record<string, unknown>> | null {
  if (value === null || value === undefined) return null
  if (!Array.isArray(value)) throw invalid('Questions must be a list of objects', 'questions')
  return value.map((raw, index) => {
    if (!isRecord(raw)) throw invalid('Questions must be a list of objects', 'questions')
    const at = `questions[${index}]`
    if (typeof raw.question !== 'string' || raw.question.trim() === '') throw invalid('Question text is required', 'questions')
    if (!(QUESTION_TYPES as readonly unknown[]).includes(raw.type))
      throw invalid(`${at}: type must be one of ${QUESTION_TYPES.join(', ')}, got ${JSON.stringify(raw.type ?? null)}.`, 'questions')
    if (
      raw.descriptionContentType !== undefined &&
      raw.descriptionContentType !== null &&
      !CONTENT_TYPES.includes(raw.descriptionContentType as string)
    )
      throw invalid("Question descriptionContentType must be one of ['text', 'html']", 'questions')
    if (raw.type === 'single_choice' || raw.type === 'multiple_choice') {
      if (!Array.isArray(raw.choices) || raw.choices.length === 0)
        throw invalid(`${at}: a ${raw.type} question needs choices, a list of strings.`, 'questions')
    }
    if (raw.choices !== undefined && raw.choices !== null) {
      if (!Array.isArray(raw.choices) || raw.choices.some((c) => typeof c !== 'string'))
        throw invalid('Question choices must be a list of strings', 'questions')
      if (raw.choices.some((c: string) => c.trim() === '')) throw invalid('Question choices cannot be empty', 'questions')
    }
    if (raw.type === 'rating') {
      if (raw.display !== undefined && raw.display !== 'number' && raw.display !== 'emoji')
        throw invalid(`${at}: display must be number or emoji.`, 'questions')
      if (raw.scale !== undefined && !(Number.isInteger(raw.scale) && (raw.scale as number) >= 2 && (raw.scale as number) <= 10))
        throw invalid(`${at}: scale must be a whole number from 2 to 10.`, 'questions')
    }
    if (typeof raw.link === 'string' && raw.link !== '') checkLink(raw.link)
    if (raw.branching !== undefined && raw.branching !== null) {
      if (!isRecord(raw.branching) || !BRANCHING_TYPES.includes(raw.branching.type as string))
        throw invalid(`${at}: branching.type must be one of ${BRANCHING_TYPES.join(', ')}.`, 'questions')
      if (raw.branching.type === 'specific_question' && !Number.isInteger(raw.branching.index))
        throw invalid(`${at}: a specific_question branching names the question's index.`, 'questions')
      if (raw.branching.type === 'response_based' && !isRecord(raw.branching.responseValues))
        throw invalid(`${at}: a response_based branching maps responses to where they lead in responseValues.`, 'questions')
    }
    return { ...raw, id: typeof raw.id === 'string' && raw.id !== '' ? raw.id : randomUUID() }
  })
}

function checkLink(link: string): void {
  let url: URL
  try {
    url = new URL(link)
  } catch {
    throw invalid('Link must be a URL with one of these schemes: [https, mailto]', 'questions')
  }
  if (url.protocol === 'mailto:') {
    if (!EMAIL_LINK.test(link))
      throw invalid('Invalid mailto link. Please enter a valid mailto link (e.g., mailto:example@domain.com).', 'questions')
  } else if (url.protocol === 'https:') {
    if (!url.host) throw invalid('Invalid HTTPS URL. Please enter a valid HTTPS link.', 'questions')
  } else throw invalid('Link must be a URL with one of these schemes: [https, mailto]', 'questions')
}

export function validConditions(value: unknown): Record<string, unknown> | null {
  if (value === null || value === undefined) return null
  if (!isRecord(value)) throw invalid('Conditions must be an object', 'conditions')
  if (value.urlMatchType !== undefined && value.urlMatchType !== null) {
    const types = ['regex', 'not_regex', 'exact', 'is_not', 'icontains', 'not_icontains']
    if (!types.includes(value.urlMatchType as string)) throw invalid(`urlMatchType must be one of ${types.join(', ')}.`, 'conditions')
  }
  const wait = value.seenSurveyWaitPeriodInDays
  if (wait !== undefined && wait !== null && !(typeof wait === 'number' && wait >= 0))
    throw invalid('seenSurveyWaitPeriodInDays must be a number of days, 0 or more.', 'conditions')
  if (
    value.deviceTypes !== undefined &&
    value.deviceTypes !== null &&
    !(Array.isArray(value.deviceTypes) && value.deviceTypes.every((d) => typeof d === 'string'))
  )
    throw invalid('deviceTypes must be a list of device types (Desktop, Mobile, Tablet).', 'conditions')
  if (value.events !== undefined && value.events !== null) {
    const values = isRecord(value.events) ? value.events.values : undefined
    if (!Array.isArray(values) || values.some((e) => !isRecord(e) || typeof e.name !== 'string'))
      throw invalid('events must be {values: [{name}]}, the events that show the survey.', 'conditions')
  }
  return value
}

export function validAppearance(value: unknown): Record<string, unknown> | null {
  if (value === null || value === undefined) return null
  if (!isRecord(value)) throw invalid('Appearance must be an object', 'appearance')
  const contentType = value.thankYouMessageDescriptionContentType
  if (contentType && !CONTENT_TYPES.includes(contentType as string))
    throw invalid("thankYouMessageDescriptionContentType must be one of ['text', 'html']", 'appearance')
  if (typeof value.surveyPopupDelaySeconds === 'number' && value.surveyPopupDelaySeconds < 0)
    throw invalid('Survey popup delay seconds must be a positive integer', 'appearance')
  if (value.whiteLabel !== undefined && value.whiteLabel !== null && typeof value.whiteLabel !== 'boolean')
    throw invalid('whiteLabel must be a boolean', 'appearance')
  return value
}

export function validSchedule(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null
  if (!(SURVEY_SCHEDULES as readonly string[]).includes(value))
    throw invalid('Schedule must be one of: once, recurring, always', 'schedule')
  return value
}

/** A date the API takes (ISO 8601; null clears it). */
export function validDate(value: string | null | undefined, attr: string): string | null {
  if (value === null || value === undefined) return null
  const at = Date.parse(value)
  if (Number.isNaN(at)) throw wrenError('invalid_date', `${attr} must be a date and time (ISO 8601), got '${value}'.`, attr)
  return new Date(at).toISOString()
}

/** Targeting that reaches everyone is no targeting: PostHog asks for the targeting to be removed instead. */
export function validTargetingFilters(value: unknown): Record<string, unknown> | null {
  if (value === null || value === undefined) return null
  if (!isRecord(value))
    throw invalid(
      'targeting_flag_filters must be a flag’s filters: {groups: [{properties, rollout_percentage}]}.',
      'targeting_flag_filters',
    )
  const groups = Array.isArray(value.groups) ? value.groups : []
  const everyone = groups.some(
    (g) =>
      isRecord(g) &&
      (g.rollout_percentage === 100 || g.rollout_percentage === null || g.rollout_percentage === undefined) &&
      (!Array.isArray(g.properties) || g.properties.length === 0),
  )
  if (everyone)
    throw invalid(
      'Invalid operation: User targeting rolls out to everyone. If you want to roll out to everyone, delete this targeting',
      'targeting_flag_filters',
    )
  return value
}

/** The linked flag's variant (conditions.linkedFlagVariant) must be one of its variants, and needs a linked flag. */
export function checkLinkedVariant(conditions: Record<string, unknown> | null, linkedFlag: { variants: string[] } | null): void {
  const variant = conditions?.linkedFlagVariant
  if (!variant || variant === 'any') return
  if (!linkedFlag) throw invalid('linkedFlagVariant can only be used when a linked_flag_id is specified', 'conditions')
  if (linkedFlag.variants.includes(variant as string)) return
  throw invalid(
    linkedFlag.variants.length
      ? `Feature flag variant '${String(variant)}' does not exist. Available variants: ${linkedFlag.variants.join(', ')}`
      : `Feature flag variant '${String(variant)}' specified but the linked feature flag has no variants`,
    'conditions',
  )
}

/** An external survey (answered on a page of its own) has no flags, page conditions or popup delay. */
export function checkExternal(
  body: Record<string, unknown>,
  conditions: Record<string, unknown> | null,
  appearance: Record<string, unknown> | null,
): void {
  for (const field of NOT_FOR_EXTERNAL)
    if (body[field] !== undefined && body[field] !== null) throw invalid(`${field} is not allowed for external surveys`, field)
  if (conditions) {
    const refused = [
      ...CONDITIONS_NOT_FOR_EXTERNAL.filter((f) => conditions[f] !== undefined && conditions[f] !== null),
      ...['actions', 'events'].filter((f) => {
        const values = isRecord(conditions[f]) ? (conditions[f] as Record<string, unknown>).values : undefined
        return Array.isArray(values) && values.length > 0
      }),
    ]
    if (refused.length)
      throw invalid(`The following condition fields are not allowed for external surveys: ${refused.join(', ')}`, 'conditions')
  }
  if (appearance && appearance.surveyPopupDelaySeconds !== undefined && appearance.surveyPopupDelaySeconds !== null)
    throw invalid('surveyPopupDelaySeconds is not allowed for external surveys', 'appearance')
}

/** An action as a survey's conditions carry it (PostHog's SurveyAPIActionSerializer): what posthog-js matches events against. */
export interface ConditionAction {
  id: number
  name: string
  steps: Array<{ properties?: unknown[] | null }>
}

/**
 * The conditions with the actions they name (`actions.values: [{id}]`) as the project has them: id, name and steps, so
 * posthog-js can match them. An action it does not have is refused, and so is one with property filters (posthog-js
 * cannot match those, PostHog refuses them too).
 */
export async function withActions(
  conditions: Record<string, unknown> | null,
  projectActions: () => Promise<ConditionAction[]>,
): Promise<Record<string, unknown> | null> {
  const values = isRecord(conditions?.actions) ? (conditions.actions as Record<string, unknown>).values : undefined
  if (!conditions || !Array.isArray(values) || values.length === 0) return conditions
  const actions = await projectActions()
  const named = values.map((v) => {
    const id = isRecord(v) ? Number(v.id) : NaN
    const action = actions.find((a) => a.id === id)
    if (!action) throw invalid(`Action ${isRecord(v) ? String(v.id) : JSON.stringify(v)} does not exist in this project.`, 'conditions')
    if (action.steps.some((step) => Array.isArray(step.properties) && step.properties.length > 0))
      throw invalid('Survey cannot be activated by an Action with property filters defined on it.', 'conditions')
    return { id: action.id, name: action.name, steps: action.steps }
  })
  return { ...conditions, actions: { values: named } }
}
