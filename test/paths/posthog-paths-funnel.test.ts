// Paths from a funnel's step (PathsQuery funnelPathsFilter) through POST …/query/, ported from PostHog's funnel
// paths tests (ee/clickhouse/queries/test/test_paths.py test_path_by_funnel_*; the HogQL port of that file,
// test_paths_query_runner_ee.py, keeps their data but not their assertions). The paths read only the events of
// the funnel's actors at funnelStep, cut at the step's time on each actor's furthest path, as PostHog's
// PathsQueryRunner (handle_funnel, funnel_join) does. Where its HogQL runner and the legacy engine those tests
// ran on differ, Wren follows the runner and says so: a drop-off's paths after the step start once the funnel's
// conversion window has passed (the legacy engine added the window to the paths before the step instead).
// One Wren, one project per data set, every event sent before the first case runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWren, type TestWren } from '../support/wren'
import { custom, edges, pathsCases, type Captured, type Link, type PathsCase } from '../support/paths'

const NOW = '2021-05-10T00:00:00Z'
const NAMES = ['dropoffs', 'limit', 'window'] as const
const at = (time: string) => `2021-05-01T${time}Z`

/** PostHog's _create_sample_data_multiple_dropoffs: 5 persons through the funnel, 10 to step two, 20 off it. */
function multipleDropoffs(first = 0, full = 5): Captured[] {
  const events: Captured[] = []
  const send = (user: string, steps: Array<[string, string]>) => events.push(...steps.map(([event, time]) => custom(user, event, at(time))))
  for (let i = first; i < first + full; i++)
    send(`user_${i}`, [
      ['step one', '00:00:00'],
      ['between_step_1_a', '00:01:00'],
      ['between_step_1_b', '00:02:00'],
      ['between_step_1_c', '00:03:00'],
      ['step two', '00:04:00'],
      ['step three', '00:05:00'],
    ])
  if (first > 0) return events
  for (let i = 5; i < 15; i++)
    send(`user_${i}`, [
      ['step one', '00:00:00'],
      ['between_step_1_a', '00:01:00'],
      ['between_step_1_b', '00:02:00'],
      ['step two', '00:03:00'],
      ['between_step_2_a', '00:04:20'],
      ['between_step_2_b', '00:05:40'],
    ])
  for (let i = 15; i < 35; i++)
    send(`user_${i}`, [
      ['step one', '00:00:00'],
      ['step dropoff1', '00:01:00'],
      ['step dropoff2', '00:02:00'],
      ...(i % 2 === 0 ? ([['step branch', '00:03:00']] as Array<[string, string]>) : []),
    ])
  return events
}

const range = { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' }
const steps = ['step one', 'step two', 'step three']

/** PostHog's funnel of the tests: three steps, a 7-day window (or the one given), the same dates as the paths. */
function funnel(
  window: { funnelWindowInterval: number; funnelWindowIntervalUnit: string } = { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' },
) {
  return { kind: 'FunnelsQuery', series: steps.map((event) => ({ kind: 'EventsNode', event })), dateRange: range, funnelsFilter: window }
}

/** A PathsQuery of every event from the funnel's step. */
function fromFunnel(funnelPathType: string, funnelStep: number, source: Record<string, unknown> = funnel()) {
  return { dateRange: range, pathsFilter: {}, funnelPathsFilter: { funnelPathType, funnelStep, funnelSource: source } }
}

const link = (source: string, target: string, value: number, average_conversion_time: number): Link => ({
  source,
  target,
  value,
  average_conversion_time,
})
const MINUTE = 60_000

/** The paths of the persons who reached step two, up to it (before_step and between steps one and two alike). */
const UP_TO_STEP_TWO = [
  link('1_step one', '2_between_step_1_a', 15, MINUTE),
  link('2_between_step_1_a', '3_between_step_1_b', 15, MINUTE),
  link('3_between_step_1_b', '4_step two', 10, MINUTE),
  link('3_between_step_1_b', '4_between_step_1_c', 5, MINUTE),
  link('4_between_step_1_c', '5_step two', 5, MINUTE),
]

describe('PostHog test_paths.py test_path_by_funnel_*: paths from a funnel step', () => {
  let t: TestWren
  let c: Record<(typeof NAMES)[number], PathsCase>

  beforeAll(async () => {
    t = await startWren({ WREN_NOW: NOW })
    const made = await pathsCases(t, NAMES)
    c = made.cases
    c.dropoffs.events.push(...multipleDropoffs())
    // test_path_by_funnel_after_step_limit: 100 more persons through the whole funnel.
    c.limit.events.push(...multipleDropoffs(), ...multipleDropoffs(100, 100))
    // test_path_by_funnel_after_step_respects_conversion_window: the same steps, a day apart.
    const day = (d: number) => `2021-05-0${d}T00:00:00Z`
    for (let i = 0; i < 5; i++)
      c.window.events.push(
        ...['step one', 'between_step_1_a', 'between_step_1_b', 'between_step_1_c', 'step two', 'step three'].map((e, d) =>
          custom(`user_${i}`, e, day(d + 1)),
        ),
      )
    for (let i = 15; i < 35; i++)
      c.window.events.push(
        ...['step one', 'step dropoff1', 'step dropoff2', ...(i % 2 === 0 ? ['step branch'] : [])].map((e, d) =>
          custom(`user_${i}`, e, day(d + 1)),
        ),
      )
    await made.sendAll()
  })
  afterAll(async () => {
    await t?.close()
  })

  it('test_path_by_funnel_after_step: the paths of those who reached step two, from it', async () => {
    expect(await c.dropoffs.paths(fromFunnel('funnel_path_after_step', 2))).toEqual([
      link('1_step two', '2_between_step_2_a', 10, 80_000),
      link('2_between_step_2_a', '3_between_step_2_b', 10, 80_000),
      link('1_step two', '2_step three', 5, MINUTE),
    ])
  })

  it('test_path_by_funnel_after_step_limit: every actor of the funnel, past any limit of 100', async () => {
    expect(await c.limit.paths(fromFunnel('funnel_path_after_step', 2))).toEqual([
      link('1_step two', '2_step three', 105, MINUTE),
      link('1_step two', '2_between_step_2_a', 10, 80_000),
      link('2_between_step_2_a', '3_between_step_2_b', 10, 80_000),
    ])
  })

  it('test_path_by_funnel_after_dropoff: after a drop-off, once the conversion window has passed', async () => {
    // PostHog's HogQL runner: the 20 who dropped off after step one are read from step one's time plus the
    // 7-day window, past the paths' dates: no paths (the legacy engine read them from step one's time).
    expect(await c.dropoffs.paths(fromFunnel('funnel_path_after_step', -2))).toEqual([])
    // A 2-minute window: everyone drops off after step one (step two comes later), read from 00:02.
    const short = funnel({ funnelWindowInterval: 2, funnelWindowIntervalUnit: 'minute' })
    const q = fromFunnel('funnel_path_after_step', -2, short)
    expect(edges(await c.dropoffs.paths(q))).toEqual([
      '1_between_step_1_b → 2_step two ×10',
      '1_step dropoff2 → 2_step branch ×10',
      '2_step two → 3_between_step_2_a ×10',
      '3_between_step_2_a → 4_between_step_2_b ×10',
      '1_between_step_1_b → 2_between_step_1_c ×5',
      '2_between_step_1_c → 3_step two ×5',
      '3_step two → 4_step three ×5',
    ])
    // The persons behind an edge of those paths (PostHog's _get_people_at_path with the funnel).
    expect(await c.dropoffs.actors(q, { pathStartKey: '1_step dropoff2', pathEndKey: '2_step branch' })).toEqual(
      Array.from({ length: 10 }, (_, i) => `user_${16 + 2 * i}`).sort(),
    )
    expect(await c.dropoffs.actors(q, { pathStartKey: '1_step one', pathEndKey: '2_step dropoff1' })).toEqual([])
  })

  it('test_path_by_funnel_after_step_respects_conversion_window: the window sets where a drop-off’s paths start', async () => {
    // Steps a day apart: each event is a session of its own, so each path is one step (PostHog's 30-minute
    // sessions). With a 1-day window, user_0…4 drop off too (step two is 4 days on); their paths start a day on.
    const q = fromFunnel('funnel_path_after_step', -2, funnel({ funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day' }))
    const stoppedAt = async (key: string) => (await c.window.actors(q, { pathDropoffKey: key })).length
    expect(await stoppedAt('1_step one')).toBe(0)
    expect(await stoppedAt('1_step dropoff1')).toBe(20)
    expect(await stoppedAt('1_between_step_1_a')).toBe(5)
    // The 7-day window ends past the paths' dates: nothing is read.
    expect(await c.window.actors(fromFunnel('funnel_path_after_step', -2), { pathDropoffKey: '1_step dropoff1' })).toEqual([])
  })

  it('test_path_by_funnel_before_dropoff: up to the last step reached by those who dropped off', async () => {
    // The 10 who reached step two but not step three, up to step two (the legacy engine added the window here).
    expect(await c.dropoffs.paths(fromFunnel('funnel_path_before_step', -3))).toEqual([
      link('1_step one', '2_between_step_1_a', 10, MINUTE),
      link('2_between_step_1_a', '3_between_step_1_b', 10, MINUTE),
      link('3_between_step_1_b', '4_step two', 10, MINUTE),
    ])
  })

  it('test_path_by_funnel_before_step: up to step two, for those who reached it', async () => {
    expect(await c.dropoffs.paths(fromFunnel('funnel_path_before_step', 2))).toEqual(UP_TO_STEP_TWO)
  })

  it('test_path_by_funnel_between_step: from step one to step two, and the persons behind each edge', async () => {
    const q = fromFunnel('funnel_path_between_steps', 2)
    expect(await c.dropoffs.paths(q)).toEqual(UP_TO_STEP_TWO)
    const count = async (start: string, end: string) => (await c.dropoffs.actors(q, { pathStartKey: start, pathEndKey: end })).length
    expect(await count('1_step one', '2_between_step_1_a')).toBe(15)
    expect(await count('2_between_step_1_a', '3_between_step_1_b')).toBe(15)
    expect(await count('3_between_step_1_b', '4_step two')).toBe(10)
    expect(await count('3_between_step_1_b', '4_between_step_1_c')).toBe(5)
    expect(await count('4_between_step_1_c', '5_step two')).toBe(5)
  })

  it('test_path_by_funnel_between_step in the legacy dialect: a saved insight’s funnel_paths and funnel_filter', async () => {
    const project = (path: string) => `/api/projects/${c.dropoffs.id}${path}`
    const funnelFilter = {
      insight: 'FUNNELS',
      ...range,
      interval: 'day',
      funnel_window_interval: 7,
      funnel_window_interval_unit: 'day',
      funnel_step: 2,
      events: steps.map((id, order) => ({ id, order, type: 'events' })),
    }
    const saved = await c.dropoffs.call('POST', project('/insights/'), {
      name: 'Between steps',
      filters: { insight: 'PATHS', ...range, funnel_paths: 'funnel_path_between_steps', funnel_filter: funnelFilter },
    })
    expect(saved.status, saved.text).toBe(201)
    const read = await c.dropoffs.call('GET', project(`/insights/${saved.body.id}/`))
    expect([read.status, read.body.result_unavailable]).toEqual([200, null])
    expect(read.body.result).toEqual(UP_TO_STEP_TWO)
    const bad = await c.dropoffs.call('POST', project('/insights/'), {
      filters: { insight: 'PATHS', funnel_paths: 'funnel_path_sideways', funnel_filter: funnelFilter },
    })
    expect([bad.status, bad.body.attr]).toEqual([400, 'funnel_paths'])
  })

  it('refuses a bad funnelPathsFilter with a 400 naming the field', async () => {
    const refused = async (funnelPathsFilter: unknown) => {
      const res = await c.dropoffs.call('POST', `/api/environments/${c.dropoffs.id}/query/`, {
        query: { kind: 'PathsQuery', dateRange: range, pathsFilter: {}, funnelPathsFilter },
      })
      expect(res.status, res.text).toBe(400)
      return res.body.attr
    }
    const ok = { funnelPathType: 'funnel_path_after_step', funnelStep: 2, funnelSource: funnel() }
    expect(await refused({ ...ok, funnelPathType: 'funnel_path_sideways' })).toBe('funnelPathsFilter.funnelPathType')
    expect(await refused({ ...ok, funnelPathType: undefined })).toBe('funnelPathsFilter.funnelPathType')
    expect(await refused({ ...ok, funnelSource: undefined })).toBe('funnelPathsFilter.funnelSource')
    expect(await refused({ ...ok, funnelSource: { kind: 'TrendsQuery', series: [] } })).toBe('funnelPathsFilter.funnelSource')
    expect(await refused({ ...ok, funnelSource: { ...funnel(), series: 'step one' } })).toMatch(/^funnelPathsFilter\.funnelSource\./)
    // A step of an action the project does not have.
    const action = { ...funnel(), series: [{ kind: 'ActionsNode', id: 987654 }, ...funnel().series.slice(1)] }
    expect(await refused({ ...ok, funnelSource: action })).toMatch(/^funnelPathsFilter\.funnelSource\./)
    for (const funnelStep of [0, -1, 1.5, undefined]) expect(await refused({ ...ok, funnelStep })).toBe('funnelPathsFilter.funnelStep')
    // Beyond the funnel's three steps, either way.
    expect(await refused({ ...ok, funnelStep: 4 })).toBe('funnelPathsFilter.funnelStep')
    expect(await refused({ ...ok, funnelStep: -4 })).toBe('funnelPathsFilter.funnelStep')
    // Between steps starts at the step before: the first has none.
    expect(await refused({ ...ok, funnelPathType: 'funnel_path_between_steps', funnelStep: 1 })).toBe('funnelPathsFilter.funnelStep')
    expect(await refused('after')).toBe('funnelPathsFilter')
    expect(await refused({ ...ok, funnelCustomSteps: [1] })).toBe('funnelPathsFilter.funnelCustomSteps')
  })
})
