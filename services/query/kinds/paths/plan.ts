// Planning paths: the request resolved against the project — its date range, its path cleaning rules, the
// cohorts its filters name, the persons the viewer may not see, the funnel its paths start from — into the SQL
// of its per-step rows (sql.ts), which the edges and the actors aggregate differently.
import type { SqlParams } from '../../../platform/clickhouse/params'
import type { Project } from '../../../platform/tenancy'
import type { ActionStore } from '../../../actions/store'
import type { CohortStore } from '../../../cohorts/store'
import { jsonValue } from '../../../analytics/property-filters/sql'
import { SESSION_JOIN_SETTINGS } from '../../../analytics/sql/sessions'
import { pathCleaningRules } from '../../../analytics/project-settings'
import { allOf, eventReads, type EventReadsDeps } from '../../common/event-reads'
import { rangeInputOf, resolveRange, weekStartOf, type DateRange } from '../../common/dates'
import { queryDefinitions, type QueryDefinitions } from '../../common/definitions'
import { embedSql, nestedAttrs } from '../../common/nested'
import type { QueryRun } from '../../kind'
import { stepRowsSql, type StepRowsInput } from './sql'
import { funnelAttr, funnelField, type FunnelPaths, type PathCleaning, type PathsRequest } from './model'

export interface PathsPlanDeps extends EventReadsDeps {
  actions: Pick<ActionStore, 'list'>
  cohorts: Pick<CohortStore, 'list'>
}

/** What the paths read besides the query: the cohorts its filters name, the project's cleaning rules, applied in order (the project's when asked for, then the query's own). */
export async function pathsDefinitions(
  deps: Pick<PathsPlanDeps, 'actions' | 'cohorts'>,
  project: Project,
  request: PathsRequest,
): Promise<QueryDefinitions & { cleaning: PathCleaning[] }> {
  const definitions = await queryDefinitions(deps, project, { ...request, entities: [], attr: 'series', breakdownType: '' })
  const cleaning = [...(request.pathReplacements ? pathCleaningRules(project.settings) : []), ...request.localPathCleaning]
  return { ...definitions, cleaning }
}

export interface PathsPlan {
  request: PathsRequest
  tz: string
  range: DateRange
  params: SqlParams
  /** The per-step rows (sql.ts stepRowsSql). */
  stepRows: string
  /** The SETTINGS clause's content the query needs ('' when none). */
  settings: string
}

/** A wildcard grouping as a pattern: PostHog escapes it as Python's re.escape does, then `*` matches anything. */
export function groupingPattern(grouping: string): string {
  return grouping.replace(/[()[\]{}?*+\-|^$\\.&~# \t\n\r\v\f]/g, '\\$&').replaceAll('\\*', '.*')
}

export async function planPaths(deps: PathsPlanDeps, run: QueryRun, request: PathsRequest): Promise<PathsPlan> {
  const { clickhouse } = deps
  const { project } = run
  const opts = { now: run.now, viewer: run.viewer }
  const tz = project.timezone || 'UTC'
  const weekStartDay = weekStartOf(project)
  const definitions = await pathsDefinitions(deps, project, request)
  // PostHog's paths have no interval: their dates round as a day's do.
  const rangeInput = await rangeInputOf(clickhouse, project.id, request, 'day')
  const range = resolveRange(rangeInput, opts.now, tz, weekStartDay)
  const events = await eventReads(deps, project, definitions, { ...opts, tz, weekStartDay, rangeInput })
  const { params } = events
  const from = events.instant(range.from)
  const to = events.instant(range.to)
  const str = (v: string) => params.add('String', v)
  const property = (key: string) => jsonValue('properties', key, params, events.filters.columns.materialized)

  // The item (PostHog's construct_event_hogql): with no types asked, every type but those excluded by name.
  const types = request.includeEventTypes
  const reads = (type: string) => (types.length === 0 ? !request.excludeEvents.includes(type) : (types as string[]).includes(type))
  let item = 'event'
  if (reads('hogql') && request.hogqlExpression)
    item = `toString(${events.hogql(request.hogqlExpression, 'pathsFilter.pathsHogQLExpression')})`
  if (reads('$pageview'))
    item = `if(event = '$pageview', replaceRegexpAll(ifNull(${property('$current_url')}, ''), '(.)/$', '\\\\1'), ${item})`
  if (reads('$screen')) item = `if(event = '$screen', ${property('$screen_name')}, ${item})`
  item = `ifNull(${item}, '')`
  for (const rule of definitions.cleaning) item = `replaceRegexpAll(${item}, ${str(rule.regex)}, ${str(rule.alias)})`
  if (request.pathGroupings.length) {
    const groupings = params.add('Array(String)', request.pathGroupings)
    const patterns = params.add('Array(String)', request.pathGroupings.map(groupingPattern))
    // A matching pattern names the item, the one Vectorscan reports first when several match (PostHog's
    // multiMatchAnyIndex, e.g. '/3*' before '/3?q=1' for '/3?q=1'); none: the item itself.
    item = `arrayElement(arrayPushFront(${groupings}, ${item} AS cleaned), multiMatchAnyIndex(cleaned, ${patterns}) + 1)`
  }

  // Which events (PostHog's _get_event_query): the types asked, then the excluded items — only with types asked.
  const typeConditions = [
    types.includes('$pageview') ? `event = '$pageview'` : null,
    types.includes('$screen') ? `event = '$screen'` : null,
    types.includes('custom_event') ? `NOT startsWith(event, '$')` : null,
  ].filter((c) => c !== null)
  const where = allOf([
    events.team,
    `timestamp >= ${from}`,
    `timestamp <= ${to}`,
    events.where(definitions.globalProperties),
    typeConditions.length ? `(${typeConditions.join(' OR ')})` : '1',
    events.visible,
  ])
  const itemWhere =
    types.length && request.excludeEvents.length ? `item NOT IN ${params.add('Array(String)', request.excludeEvents)}` : null

  // The single point a path is cut at loses one trailing slash (as page view URLs do); both points are taken as asked.
  const point = request.endPoint ?? request.startPoint
  const target = point && point.length > 1 && point.endsWith('/') ? point.slice(0, -1) : point
  const SOURCE = '__wren_paths_events__'
  const sql = stepRowsSql({
    from: SOURCE,
    where,
    actor: events.personId.sql,
    item,
    itemWhere,
    start: request.startPoint !== null ? str(request.startPoint) : null,
    end: request.endPoint !== null ? str(request.endPoint) : null,
    target: target !== null ? str(target) : null,
    stepLimit: request.stepLimit,
    funnel: request.funnel ? await funnelActors(deps, run, request.funnel, params) : null,
  })
  const source = events.source({ from, to })
  // The funnel's actors may read sessions too (an ActorsQuery's source runs with the same setting).
  const settings = source.settings || (request.funnel ? SESSION_JOIN_SETTINGS : '')
  return { request, tz, range, params, stepRows: sql.split(SOURCE).join(source.from), settings }
}

/**
 * PostHog's funnel_join and handle_funnel: the funnel's actors at the step, with its times (the funnel's kind
 * computes them), and which of their events the paths read — after the step (for those who dropped off, once the
 * conversion window has passed), up to it, or from the step before to it.
 */
async function funnelActors(deps: PathsPlanDeps, run: QueryRun, funnel: FunnelPaths, params: SqlParams): Promise<StepRowsInput['funnel']> {
  const point = {
    day: null,
    series: 0,
    breakdown: null,
    compare: null,
    status: null,
    interval: null,
    funnel: {
      funnelStep: funnel.step,
      funnelCustomSteps: null,
      funnelStepBreakdown: null,
      funnelTrendsDropOff: null,
      funnelTrendsEntrancePeriodStart: null,
      stepTimes: true,
    },
  }
  // The funnel kind names the fields of a FunnelsActorsQuery (`source.funnelStep`) and of its funnel (`source.source`).
  const rename = (attr: string | null) => {
    if (attr === 'source.funnelStep') return funnelField(funnel, 'step')
    if (attr?.startsWith('source.source.')) return funnelAttr(funnel)(attr.slice('source.source.'.length))
    return funnelField(funnel, 'source')
  }
  const actors = await nestedAttrs(rename, () => funnel.read.actors(deps, run, point))
  const condition = {
    funnel_path_after_step: `ts >= funnel_actors.${funnel.step < 0 ? 'window_end' : 'target_time'}`,
    funnel_path_before_step: 'ts <= funnel_actors.target_time',
    funnel_path_between_steps: 'ts >= funnel_actors.previous_time AND ts <= funnel_actors.target_time',
  }[funnel.pathType]
  return { sql: embedSql(actors, params, 'f_'), condition }
}
