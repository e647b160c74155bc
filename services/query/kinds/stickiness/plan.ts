// Planning a stickiness: the request resolved against the project (its range and, with compare, the previous
// one; its series' actions; the cohorts its filters name; the persons the viewer may not see) into one pass over
// the events. Each event counts for every slot it matches: a slot is a series in a period (the range, or the
// compared one). Per slot and actor, the intervals it was active in (an interval counts when the actor did it
// there as often as stickinessCriteria asks; at least once without); PostHog's intervals are the interval's
// own periods, or with intervalCount, groups of that many intervals counted back from the range's end.
import type { PersonalApiKey, Project } from '../../../platform/tenancy'
import type { Action, ActionStore } from '../../../actions/store'
import type { CohortStore } from '../../../cohorts/store'
import { instantParam, previousRange, rangeInputOf, resolveRange, weekStartOf, type DateRange } from '../../common/dates'
import { queryDefinitions } from '../../common/definitions'
import { allOf, eventReads, type EventReads, type EventReadsDeps } from '../../common/event-reads'
import { periodNumberSql } from '../../common/periods'
import type { SeriesEntity } from '../../common/series'
import type { StickinessRequest } from './model'

export interface StickinessPlanDeps extends EventReadsDeps {
  actions: Pick<ActionStore, 'list'>
  cohorts: Pick<CohortStore, 'list'>
}

/** The actions its series name (another project's is a 400) and the cohorts its filters name. */
export const stickinessDefinitions = (
  deps: Pick<StickinessPlanDeps, 'actions' | 'cohorts'>,
  project: Project,
  request: StickinessRequest,
) => queryDefinitions(deps, project, { ...request, entities: request.series, attr: 'series', breakdownType: 'event' })

/** One series in one period: what a row of the answer counts. */
export interface StickinessSlot {
  series: number
  entity: SeriesEntity
  /** The series' display name: its event (null for any event), or its action's name. */
  name: string | null
  previous: boolean
  range: DateRange
  /** How many intervals the period has (the answer's `days` run 1 … n). */
  intervals: number
}

export interface StickinessPlan {
  request: StickinessRequest
  slots: StickinessSlot[]
  reads: EventReads
  /** Rows of (slot, actor, num_intervals, event_count): per slot, each actor active in the period. */
  actorIntervals: string
  /** Whether the actors are persons (their uuids as text), rather than groups or HogQL values. */
  persons: boolean[]
  /** Per slot, the group type its actors are (math unique_group), else null. */
  groups: Array<number | null>
  settings: string
}

export async function planStickiness(
  deps: StickinessPlanDeps,
  project: Project,
  request: StickinessRequest,
  opts: { now: Date; viewer?: PersonalApiKey },
): Promise<StickinessPlan> {
  const tz = project.timezone || 'UTC'
  const weekStartDay = weekStartOf(project)
  const definitions = await stickinessDefinitions(deps, project, request)
  const rangeInput = await rangeInputOf(deps.clickhouse, project.id, request, request.interval)
  const current = resolveRange(rangeInput, opts.now, tz, weekStartDay)
  const ranges = request.compare ? [current, previousRange(current, rangeInput, request.compareTo)] : [current]
  const reads = await eventReads(deps, project, definitions, { now: opts.now, viewer: opts.viewer, tz, weekStartDay, rangeInput })
  const { params } = reads
  const tzParam = params.add('String', tz)
  const count = request.intervalCount
  const slots: StickinessSlot[] = request.series.flatMap((entity, series) =>
    ranges.map((range, i) => ({
      series,
      entity,
      name: entity.kind === 'actions' ? definitions.actions.get(Number(entity.id))!.name : entity.id === null ? null : String(entity.id),
      previous: i === 1,
      range,
      intervals: Math.ceil(range.buckets.length / (count ?? 1)),
    })),
  )
  const persons: boolean[] = []
  const groups: Array<number | null> = []
  const matches = slots.map((slot, i) => {
    const { entity, range } = slot
    const from = reads.instant(range.from)
    const to = reads.instant(range.to)
    const own = reads.entity(entity)
    const conditions = [own, `timestamp >= ${from}`, `timestamp <= ${to}`]
    let actor = reads.personId.sql
    if (entity.math === 'hogql') actor = `toString(${reads.hogql(entity.mathHogql!, `series[${slot.series}].math_hogql`, 'e')})`
    else if (entity.math === 'unique_group') {
      actor = `\`$group_${entity.mathGroupTypeIndex}\``
      conditions.push(`${actor} != ''`)
    }
    persons.push(entity.math !== 'hogql' && entity.math !== 'unique_group')
    groups.push(entity.math === 'unique_group' ? entity.mathGroupTypeIndex : null)
    // An interval: the period's own, or with intervalCount, how many groups of that many intervals back from the end.
    const key =
      count === null
        ? periodNumberSql('timestamp', range.interval, tzParam, weekStartDay)
        : `intDiv(toInt64(age(${params.add('String', range.interval)}, timestamp, toDateTime64(${params.add('String', instantParam(range.to, tz))}, 6, 'UTC'), ${tzParam})), ${count})`
    return { entity: own, conditions, actor, key }
  })
  const lowest = ranges.reduce((a, r) => (r.from.getTime() < a.getTime() ? r.from : a), ranges[0].from)
  const highest = ranges.reduce((a, r) => (r.to.getTime() > a.getTime() ? r.to : a), ranges[0].to)
  const where = allOf([
    reads.team,
    `timestamp >= ${reads.instant(lowest)}`,
    `timestamp <= ${reads.instant(highest)}`,
    reads.where(definitions.globalProperties),
    reads.visible,
    matches.some((m) => m.entity === '1') ? '1' : `(${[...new Set(matches.map((m) => m.entity))].join(' OR ')})`,
  ])
  const source = reads.source({ from: reads.instant(lowest), to: reads.instant(highest) })
  // Each event as (slot, actor, interval) for every slot it matches; one slot needs no array of them. Slots
  // reading their actor or interval alike (a series and its compared period) read it once, as its own type.
  const [only] = matches
  const pick = (xs: string[], text: (x: string) => string) =>
    xs.every((x) => x === xs[0]) ? xs[0] : `multiIf(${xs.map((x, i) => `slot = ${i}, ${text(x)}`).join(', ')}, ${text(xs[0])})`
  // One series whose periods do not overlap (compare's usual case): an event is in one slot at most, picked
  // without an array per event (a compared stickiness over 10 M events: 1.24x its hand SQL with the array, 1.14x without).
  const disjoint = ranges.every((a, i) => ranges.every((b, j) => i === j || a.to < b.from || b.to < a.from))
  const slotOf =
    request.series.length === 1 && disjoint
      ? `multiIf(${matches.map((m, i) => `${allOf(m.conditions)}, ${i}`).join(', ')}, -1)`
      : `arrayJoin(arrayFilter(i -> i >= 0, [${matches.map((m, i) => `if(${allOf(m.conditions)}, ${i}, -1)`).join(', ')}]))`
  const rows =
    matches.length === 1
      ? `SELECT ${only.actor} AS actor, ${only.key} AS k FROM ${source.from} WHERE ${allOf([where, ...only.conditions])}`
      : `SELECT ${slotOf} AS slot,
          ${pick(
            matches.map((m) => m.actor),
            (x) => `toString(${x})`,
          )} AS actor, ${pick(
            matches.map((m) => m.key),
            (x) => x,
          )} AS k
        FROM ${source.from} WHERE ${where} AND slot >= 0`
  // Without stickinessCriteria an interval counts at its first event: its distinct intervals, in one grouping.
  // One slot groups by the actor alone: a constant in the grouping key still costs (1.6x over 10 M events).
  const c = request.criteria
  const by = matches.length === 1 ? 'actor' : 'slot, actor'
  const slot = matches.length === 1 ? 'toUInt16(0) AS slot' : 'slot'
  const actorIntervals = c
    ? `SELECT ${slot}, actor, count() AS num_intervals, sum(events) AS event_count FROM (
        SELECT ${by}, k, count() AS events FROM (${rows}) GROUP BY ${by}, k
        HAVING count() ${{ gte: '>=', lte: '<=', exact: '=' }[c.operator]} ${params.add('Int64', c.value)})
      GROUP BY ${by}`
    : `SELECT ${slot}, actor, uniqExact(k) AS num_intervals, count() AS event_count FROM (${rows}) GROUP BY ${by}`
  return { request, slots, reads, actorIntervals, persons, groups, settings: source.settings }
}

/** The SQL with its SETTINGS clause, when the query needs one. */
export const withSettings = (sql: string, plan: StickinessPlan) => (plan.settings ? `${sql} SETTINGS ${plan.settings}` : sql)
