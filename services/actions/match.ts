// An action as a SQL condition over the events table: any step matches (OR); a step is the AND of its
// parts. Element parts (selector, tag, href, text) apply only to `$autocapture` steps, as in PostHog.
import { wrenError } from '../platform/errors'
import { isRecord } from '../platform/json'
import {
  checkHogqlFilters,
  compareValue,
  compileGroup,
  selectorSql,
  escapeRegex,
  type FilterContext,
} from '../analytics/property-filters/sql'
import { parsePropertyGroup } from '../analytics/property-filters/parse'
import type { Action, ActionStep } from './store'

const MATCHINGS = ['contains', 'exact', 'regex']

export function validateSteps(raw: unknown): ActionStep[] {
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw)) throw wrenError('invalid_input', 'steps must be a list of step objects.', 'steps')
  return raw.map((s, i) => {
    if (typeof s !== 'object' || s === null || Array.isArray(s)) throw wrenError('invalid_input', `steps[${i}] must be an object.`, 'steps')
    const step = s as Record<string, unknown>
    const out: ActionStep = {}
    for (const k of ['event', 'url', 'text', 'href', 'selector', 'tag_name'] as const) {
      const v = step[k]
      if (v !== undefined && v !== null && typeof v !== 'string')
        throw wrenError('invalid_input', `steps[${i}].${k} must be a string.`, 'steps')
      out[k] = (v as string | null | undefined) ?? null
    }
    for (const k of ['url_matching', 'text_matching', 'href_matching'] as const) {
      const v = step[k]
      if (v !== undefined && v !== null && !MATCHINGS.includes(v as string))
        throw wrenError('invalid_input', `steps[${i}].${k} must be contains, exact or regex.`, 'steps')
      out[k] = (v as ActionStep['url_matching']) ?? null
    }
    if (out.url && !out.url_matching) out.url_matching = 'contains'
    const props = step.properties ?? []
    checkHogqlFilters(parsePropertyGroup(props, `steps[${i}].properties`), 'events', 'steps')
    // An empty object (how PostHog's own fixtures write "no properties") is no filter.
    out.properties = Array.isArray(props) ? props : isRecord(props) && Object.keys(props).length === 0 ? [] : [props]
    return out
  })
}

export function actionSql(action: Action, ctx: FilterContext): string {
  if (action.steps.length === 0) return '1'
  const steps = action.steps.map((s) => stepSql(s, ctx))
  return steps.length === 1 ? steps[0] : `(${steps.join(' OR ')})`
}

function stepSql(step: ActionStep, ctx: FilterContext): string {
  const { params } = ctx
  const parts: string[] = []
  if (step.event) parts.push(`event = ${params.add('String', step.event)}`)
  if (step.url) {
    const url = '`mat_$current_url`'
    const v = params.add('String', step.url)
    parts.push(
      step.url_matching === 'exact'
        ? `${url} = ${v}`
        : step.url_matching === 'regex'
          ? `match(${url}, ${v})`
          : `like(${url}, concat('%', ${v}, '%'))`,
    )
  }
  if (step.event === '$autocapture') {
    if (step.selector) parts.push(selectorSql('elements_chain', step.selector, params))
    if (step.tag_name) parts.push(`match(elements_chain, ${params.add('String', `(^|;)${escapeRegex(step.tag_name)}(\\.|$|;|:)`)})`)
    for (const attr of ['href', 'text'] as const) {
      const value = step[attr]
      if (!value) continue
      const matching = step[`${attr}_matching`] ?? 'exact'
      const operator = matching === 'exact' ? 'exact' : matching === 'regex' ? 'regex' : 'icontains'
      const list = `extractAll(elements_chain, ${params.add('String', `(?::|")${attr}="(.*?)"`)})`
      parts.push(`arrayExists(v -> ${compareValue('toNullable(v)', { key: attr, value, operator, type: 'element' }, ctx)}, ${list})`)
    }
  }
  if (step.properties && step.properties.length > 0) parts.push(compileGroup(parsePropertyGroup(step.properties, 'steps.properties'), ctx))
  const real = parts.filter((p) => p !== '1')
  if (real.length === 0) return '1'
  return real.length === 1 ? real[0] : `(${real.join(' AND ')})`
}

/** Cohort ids that the action's step properties refer to (they must be loaded before compiling). */
export function cohortIdsOfAction(action: Action): number[] {
  return action.steps.flatMap((s) =>
    (s.properties ?? []).flatMap((p) => (isCohortFilter(p) ? [Number((p as { value: unknown }).value)] : [])),
  )
}

const isCohortFilter = (p: unknown) =>
  typeof p === 'object' &&
  p !== null &&
  ['cohort', 'precalculated-cohort', 'static-cohort'].includes(String((p as { type?: unknown }).type))
