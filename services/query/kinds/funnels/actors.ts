// The actors behind a funnel's point (PostHog's FunnelsActorsQuery, an ActorsQuery's source): the same per-actor
// rows as the funnel's numbers (plan.ts), kept where the step reached, the breakdown value and (conversion
// trends) the period entered match the point; the ActorsQuery joins them to the persons and pages them.
import { wrenError } from '../../../platform/errors'
import type { ActorsPoint, ActorsSql, QueryRun } from '../../kind'
import { MULTI_SEPARATOR } from '../../common/breakdown-sql'
import { planFunnel, type FunnelPlanDeps } from './plan'
import { UNIT_SECONDS, type FunnelRequest } from './model'
import { LIMITED } from './compute'
import { keptValuesSql } from './sql'

export async function funnelActors(deps: FunnelPlanDeps, run: QueryRun, request: FunnelRequest, point: ActorsPoint): Promise<ActorsSql> {
  const asked = point.funnel
  if (!asked) throw wrenError('unsupported', "A funnel's actors are asked with a FunnelsActorsQuery (funnelStep).", 'source.kind')
  const plan = await planFunnel(deps, run.project, request, { now: run.now, viewer: run.viewer })
  if (request.aggregateByHogql)
    throw wrenError(
      'unsupported',
      'The actors of a funnel aggregated by a HogQL value are not listed: only persons and groups.',
      'source.source',
    )
  const { params } = plan
  const conditions: string[] = []
  if (asked.stepTimes && (request.vizType === 'trends' || asked.funnelCustomSteps || asked.funnelStep === null))
    throw wrenError('required', "The times of a funnel's step need one step: funnelStep, of a funnel of steps.", 'source.funnelStep')
  if (request.vizType === 'trends') {
    const period = asked.funnelTrendsEntrancePeriodStart
    if (period === null || asked.funnelTrendsDropOff === null)
      throw wrenError(
        'required',
        'The actors of a conversion trend need funnelTrendsEntrancePeriodStart and funnelTrendsDropOff.',
        'source.funnelTrendsEntrancePeriodStart',
      )
    const m = /^(\d{4}-\d\d-\d\d)(?:[ T](\d\d:\d\d(?::\d\d)?))?/.exec(period)
    if (!m)
      throw wrenError(
        'invalid_input',
        'funnelTrendsEntrancePeriodStart must be a date such as 2024-05-01.',
        'source.funnelTrendsEntrancePeriodStart',
      )
    const wall = `${m[1]} ${m[2] ? m[2].padEnd(8, ':00') : '00:00:00'}`
    conditions.push(`per = toDateTime(${params.add('String', wall)}, ${params.add('String', plan.tz)})`)
    const from = request.fromStep ?? 0
    const last = request.toStep ?? plan.steps.length - 1
    conditions.push(asked.funnelTrendsDropOff ? `step_reached >= ${from} AND step_reached < ${last}` : `step_reached >= ${last}`)
  } else if (asked.funnelCustomSteps) {
    const steps = plan.steps.length
    if (asked.funnelCustomSteps.some((n) => n < 1 || n > steps))
      throw wrenError('invalid_input', `funnelCustomSteps must be steps of the funnel: 1 to ${steps}.`, 'source.funnelCustomSteps')
    conditions.push(`step_reached IN (${[...new Set(asked.funnelCustomSteps)].map((n) => n - 1).join(', ')})`)
  } else {
    const n = asked.funnelStep
    const steps = plan.steps.length
    if (n === null || n === 0 || n === -1 || Math.abs(n) > steps)
      throw wrenError(
        'invalid_input',
        `funnelStep must be a step of the funnel: 1 to ${steps} (reached), or -2 to -${steps} (dropped off before it).`,
        'source.funnelStep',
      )
    conditions.push(n > 0 ? `step_reached >= ${n - 1}` : `step_reached = ${-n - 2}`)
  }
  const value = asked.funnelStepBreakdown
  if (value !== null && value !== undefined) {
    if (request.breakdown === null) throw wrenError('invalid_input', 'The funnel has no breakdown.', 'source.funnelStepBreakdown')
    const raw = Array.isArray(value) ? value.map(String).join(MULTI_SEPARATOR) : String(value)
    if (raw === 'Other') {
      // The values the answer summed into "Other": all but the ones it kept (as stepsSql ranks them).
      if (!LIMITED.includes(request.breakdownType))
        throw wrenError('invalid_input', `A ${request.breakdownType} breakdown has no "Other" value.`, 'source.funnelStepBreakdown')
      conditions.push(`pv NOT IN (${keptValuesSql(plan.actorRows, plan.steps.length, request.breakdownLimit)})`)
    } else if (request.breakdownType === 'cohort' && (raw === '0' || raw === 'all')) conditions.push(`pv = 'all'`)
    // Every property missing: '' (no touch had any) or the empty parts joined (an event had none).
    else if (raw.split(MULTI_SEPARATOR).every((v) => v === '')) conditions.push(`replaceAll(pv, char(31), '') = ''`)
    else conditions.push(`pv = ${params.add('String', raw)}`)
  }
  const sql = `SELECT actor AS actor_id, max(event_count) AS event_count, CAST([] AS Array(String)) AS event_distinct_ids${asked.stepTimes ? stepTimes(request, asked.funnelStep!) : ''}
    FROM (${plan.actorRows}) WHERE ${conditions.join(' AND ')} GROUP BY actor`
  return { sql, params: params.values, ...(request.aggregationGroup === null ? {} : { groupTypeIndex: request.aggregationGroup }) }
}

/**
 * The columns of the step's times (kind.ts FunnelActorsPoint.stepTimes), from the furthest path's start (µs) and
 * the seconds between its steps: step k is reached at the start plus the first k gaps.
 */
function stepTimes(request: FunnelRequest, funnelStep: number): string {
  const target = funnelStep > 0 ? funnelStep - 1 : -funnelStep - 2
  const at = (k: number) => `argMax(toInt64(start + round(arraySum(arraySlice(timings, 1, ${k})) * 1e6)), step_reached)`
  const window = Math.round(request.windowInterval * UNIT_SECONDS[request.windowUnit] * 1e6)
  return `, ${at(target)} AS target_time, ${target > 0 ? `toNullable(${at(target - 1)})` : 'CAST(NULL AS Nullable(Int64))'} AS previous_time,
    target_time + ${window} AS window_end`
}
