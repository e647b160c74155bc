// Planning a funnel: the request resolved against the project — its date range, the actions and cohorts its
// steps and filters name, the persons the viewer may not see — into the SQL of its per-actor rows (sql.ts),
// which every viz type and the actors aggregate differently.
import type { SqlParams } from '../../../platform/clickhouse/params'
import type { PersonalApiKey, Project } from '../../../platform/tenancy'
import type { ActionStore } from '../../../actions/store'
import type { Cohort, CohortStore } from '../../../cohorts/store'
import { fromWall } from '../../../analytics/time/wall-time'
import { rangeInputOf, resolveRange, weekStartOf, type DateRange } from '../../common/dates'

const DAY_MS = 86_400_000
import { allOf, eventReads, type EventReadsDeps } from '../../common/event-reads'
import { breakdownExpr } from '../../common/breakdown-sql'
import type { SeriesEntity } from '../../common/series'
import { queryDefinitions } from '../../common/definitions'
import { actorRowsSql } from './sql'
import { UNIT_SECONDS, type FunnelRequest } from './model'

export interface FunnelPlanDeps extends EventReadsDeps {
  actions: Pick<ActionStore, 'list'>
  cohorts: Pick<CohortStore, 'list'>
}

/** The actions and cohorts a funnel names; another project's action is a 400 (a deleted one still counts, as in trends). */
export const funnelDefinitions = (deps: Pick<FunnelPlanDeps, 'actions' | 'cohorts'>, project: Project, request: FunnelRequest) =>
  queryDefinitions(deps, project, {
    ...request,
    entities: [...request.series, ...request.exclusions.map((x) => x.entity)],
    attr: 'series',
  })

export interface FunnelPlan {
  request: FunnelRequest
  tz: string
  range: DateRange
  /** Per step: its entity and display name (null for any event, as PostHog names it). */
  steps: Array<{ entity: SeriesEntity; name: string | null }>
  cohorts: Map<number, Cohort>
  params: SqlParams
  /** The per-actor rows (sql.ts actorRowsSql). */
  actorRows: string
  /** The SETTINGS clause's content the query needs ('' when none). */
  settings: string
  /** How the actor column reads: 'persons' (a person's uuid) or anything else (groups, HogQL). */
  actorKind: 'persons' | 'other'
}

export async function planFunnel(
  deps: FunnelPlanDeps,
  project: Project,
  request: FunnelRequest,
  opts: { now: Date; viewer?: PersonalApiKey },
): Promise<FunnelPlan> {
  const { clickhouse } = deps
  const tz = project.timezone || 'UTC'
  const weekStartDay = weekStartOf(project)
  const definitions = await funnelDefinitions(deps, project, request)
  const { actions, cohorts } = definitions
  const rangeInput = await rangeInputOf(clickhouse, project.id, request, request.interval)
  const range = resolveRange(rangeInput, opts.now, tz, weekStartDay)
  const reads = await eventReads(deps, project, definitions, { now: opts.now, viewer: opts.viewer, tz, weekStartDay, rangeInput })
  const { params } = reads
  const from = reads.instant(range.from)
  const to = reads.instant(range.to)

  let actor = reads.personId.sql
  let actorKind: FunnelPlan['actorKind'] = 'persons'
  const actorConditions: string[] = []
  if (request.aggregateByHogql) {
    actor = `toString(${reads.hogql(request.aggregateByHogql, 'funnelsFilter.funnelAggregateByHogQL')})`
    actorKind = 'other'
    actorConditions.push(`${actor} != ''`)
  } else if (request.aggregationGroup !== null) {
    actor = `\`$group_${request.aggregationGroup}\``
    actorKind = 'other'
    actorConditions.push(`${actor} != ''`)
  }

  const SOURCE = '__wren_funnel_events__'
  // Conversion trends measure up to funnelToStep: the funnel is cut there (PostHog's max_steps_override).
  const counted = request.vizType === 'trends' && request.toStep !== null ? request.series.slice(0, request.toStep + 1) : request.series
  const steps = counted.map((e) => {
    let condition = reads.entity(e)
    // First time for user: only the actor's first event of the step's event or action ever (before the range's
    // end), or with filters (first_matching_event_for_user), the first that also matches the step's properties.
    if (e.math === 'first_time_for_user' || e.math === 'first_matching_event_for_user') {
      const first = e.math === 'first_time_for_user' ? reads.named(e) : condition
      condition = `${condition === '1' ? '' : `${condition} AND `}(${actor}, timestamp) IN (SELECT ${actor}, min(timestamp) FROM ${SOURCE} WHERE ${reads.team} AND timestamp <= ${to} AND ${first} GROUP BY ${actor})`
    }
    return condition
  })
  const exclusions = request.exclusions.map((x) => ({ condition: reads.entity(x.entity), fromStep: x.fromStep, toStep: x.toStep }))
  const breakdown = breakdownExpr(request, reads.breakdown)
  const where = allOf([
    reads.team,
    `timestamp >= ${from}`,
    `timestamp <= ${to}`,
    reads.where(definitions.globalProperties),
    reads.visible,
    ...actorConditions,
  ])
  const tzParam = params.add('String', tz)
  const start = (local: string) =>
    ({
      hour: `toStartOfHour(${local})`,
      day: `toStartOfDay(${local})`,
      week: `toStartOfWeek(${local}, ${weekStartDay === 1 ? 3 : 0})`,
      month: `toStartOfMonth(${local})`,
    })[request.interval]
  const period =
    request.vizType === 'trends' ? (instant: string) => `toDateTime(${start(`toTimeZone(${instant}, ${tzParam})`)}, ${tzParam})` : null
  const sql = actorRowsSql({
    from: SOURCE,
    where,
    actor,
    steps,
    exclusions,
    orderType: request.orderType,
    windowSeconds: request.windowInterval * UNIT_SECONDS[request.windowUnit],
    breakdown: breakdown ? { expr: breakdown.expr, cohort: breakdown.multi, list: request.breakdowns !== null } : null,
    attribution: request.attribution,
    attributionStep: request.attributionValue,
    period,
    fromStep: request.fromStep ?? 0,
    // The WHERE's bounds, widened by a day for safety.
    span: {
      from: BigInt(fromWall(range.from, tz).getTime() - DAY_MS) * 1000n,
      to: BigInt(fromWall(range.to, tz).getTime() + DAY_MS) * 1000n,
    },
  })
  const source = reads.source({ from, to })
  const names = request.series.map((entity) => ({
    entity,
    name: entity.kind === 'actions' ? actions.get(Number(entity.id))!.name : entity.id === null ? null : String(entity.id),
  }))
  return {
    request,
    tz,
    range,
    steps: names,
    cohorts,
    params,
    actorRows: sql.split(SOURCE).join(source.from),
    settings: source.settings,
    actorKind,
  }
}
