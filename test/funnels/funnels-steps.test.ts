// FunnelsQuery steps through POST …/query/ on events captured with historical timestamps: ordered, strict and
// unordered funnels, the conversion window, exclusions, step filters, first-time steps, breakdowns with their
// attribution and "Other", groups (and the groups behind a step) and HogQL actors, and bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'

const NOW = '2026-03-15T12:00:00Z'

describe('FunnelsQuery steps', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  const query = (q: Record<string, unknown>) =>
    call('POST', `/api/environments/${t.projectId}/query/`, { query: { kind: 'FunnelsQuery', ...q }, refresh: 'force_blocking' })
  const steps = (...events: string[]) => events.map((event) => ({ kind: 'EventsNode', event }))
  const counts = (results: Array<{ count: number }>) => results.map((s) => s.count)

  beforeAll(async () => {
    t = await startWren({ WREN_NOW: NOW })
    call = api(t)
    const ev = (event: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) => ({
      event,
      distinct_id,
      timestamp,
      properties,
    })
    await captureBatch(t, [
      ev('$pageview', 'u1', '2026-03-09T10:00:00Z', {
        $browser: 'Chrome',
        $groups: { company: 'acme' },
        $set: { plan: 'pro' },
        $session_id: 's1',
        $current_url: 'https://a.com/x',
      }),
      ev('signed_up', 'u1', '2026-03-09T11:00:00Z', { $browser: 'Chrome', plan: 'pro', $groups: { company: 'acme' } }),
      ev('paid', 'u1', '2026-03-09T13:00:00Z', { $browser: 'Chrome', $groups: { company: 'acme' } }),
      ev('$pageview', 'u2', '2026-03-10T09:00:00Z', {
        $browser: 'Safari',
        $groups: { company: 'acme' },
        $set: { plan: 'free' },
        $session_id: 's2',
        $current_url: 'https://a.com/y',
      }),
      ev('clicked', 'u2', '2026-03-10T09:10:00Z', { $browser: 'Safari' }),
      ev('signed_up', 'u2', '2026-03-10T09:30:00Z', { $browser: 'Firefox', plan: 'free' }),
      ev('$pageview', 'u3', '2026-03-11T09:00:00Z', { $browser: 'Chrome', $groups: { company: 'globex' } }),
      ev('signed_up', 'u4', '2026-03-02T10:00:00Z'),
      ev('signed_up', 'u4', '2026-03-11T10:00:00Z'),
      ev('signed_up', 'u5', '2026-03-12T08:00:00Z', { $browser: 'Opera' }),
      ev('$pageview', 'u5', '2026-03-12T09:00:00Z', { $browser: 'Opera' }),
      ev('$pageview', 'u6', '2026-03-01T12:00:00Z', { $browser: 'Chrome' }),
      ev('signed_up', 'u6', '2026-03-09T12:00:00Z', { $browser: 'Chrome' }),
      // Acme's name and size, told before the range the funnels read (globex is never identified).
      ev('$groupidentify', 'u1', '2026-01-05T09:00:00Z', {
        $group_type: 'company',
        $group_key: 'acme',
        $group_set: { name: 'Acme Inc', size: 12 },
      }),
    ])
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('counts an ordered funnel with conversion times (mirrors test_funnel.py test_basic_funnel)', async () => {
    const res = await query({ series: steps('$pageview', 'signed_up', 'paid') })
    expect(res.status).toBe(200)
    const results = res.body.results
    expect(counts(results)).toEqual([4, 2, 1])
    expect(results[0]).toEqual({
      action_id: '$pageview',
      name: '$pageview',
      custom_name: null,
      order: 0,
      count: 4,
      type: 'events',
      people: [],
      average_conversion_time: null,
      median_conversion_time: null,
    })
    expect(results[1]).toMatchObject({ name: 'signed_up', order: 1, average_conversion_time: 2700, median_conversion_time: 2700 })
    expect(results[2]).toMatchObject({ name: 'paid', average_conversion_time: 7200, median_conversion_time: 7200 })
  })

  it('breaks a strict funnel on any other event (mirrors test_funnel_strict.py test_basic_strict_funnel)', async () => {
    const res = await query({ series: steps('$pageview', 'signed_up', 'paid'), funnelsFilter: { funnelOrderType: 'strict' } })
    expect(counts(res.body.results)).toEqual([4, 1, 1])
  })

  it('counts unordered steps as "Completed N steps" (mirrors test_funnel_unordered.py test_basic_unordered_funnel)', async () => {
    const res = await query({ series: steps('$pageview', 'signed_up', 'paid'), funnelsFilter: { funnelOrderType: 'unordered' } })
    const results = res.body.results
    expect(results.map((s: { name: string }) => s.name)).toEqual(['Completed 1 step', 'Completed 2 steps', 'Completed 3 steps'])
    expect(counts(results)).toEqual([6, 3, 1])
    expect(results[0].action_id).toBe(null)
    expect(results[1]).toMatchObject({ average_conversion_time: 3000, median_conversion_time: 3600 })
    // u2's clicked falls between its two steps: an exclusion over the whole funnel keeps u2 at step one only
    // (as PostHog's test_funnel_unordered.py test_funnel_exclusions_full_window keeps its person2).
    const excluded = await query({
      series: steps('$pageview', 'signed_up', 'paid'),
      funnelsFilter: {
        funnelOrderType: 'unordered',
        exclusions: [{ kind: 'EventsNode', event: 'clicked', funnelFromStep: 0, funnelToStep: 2 }],
      },
    })
    expect(counts(excluded.body.results)).toEqual([6, 2, 1])
  })

  it('drops conversions outside the window (mirrors test_funnel_conversion_window.py)', async () => {
    const res = await query({
      series: steps('$pageview', 'signed_up', 'paid'),
      funnelsFilter: { funnelWindowInterval: 45, funnelWindowIntervalUnit: 'minute' },
    })
    expect(counts(res.body.results)).toEqual([4, 1, 0])
  })

  it('disqualifies actors with an excluded event between the steps (mirrors test_funnel.py test_funnel_exclusions_full_window)', async () => {
    const res = await query({
      series: steps('$pageview', 'signed_up', 'paid'),
      funnelsFilter: { exclusions: [{ kind: 'EventsNode', event: 'clicked', funnelFromStep: 0, funnelToStep: 1 }] },
    })
    expect(counts(res.body.results)).toEqual([3, 1, 1])
    const later = await query({
      series: steps('$pageview', 'signed_up', 'paid'),
      funnelsFilter: { exclusions: [{ kind: 'EventsNode', event: 'clicked', funnelFromStep: 1, funnelToStep: 2 }] },
    })
    expect(counts(later.body.results)).toEqual([4, 2, 1])
    // Nobody entered: no steps at all (mirrors test_funnel.py test_advanced_funnel_exclusions_between_steps' empty case).
    const nobody = await query({ series: steps('never_sent', 'paid') })
    expect(nobody.body.results).toEqual([])
  })

  it('applies step properties, global properties and an any-event step', async () => {
    const res = await query({
      series: [
        { kind: 'EventsNode', event: '$pageview' },
        { kind: 'EventsNode', event: 'signed_up', properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }] },
      ],
    })
    expect(counts(res.body.results)).toEqual([4, 1])
    const global = await query({
      series: steps('$pageview', 'signed_up'),
      properties: {
        type: 'OR',
        values: [
          {
            type: 'AND',
            values: [
              { key: '$browser', value: 'Safari', operator: 'exact', type: 'event' },
              { key: '$browser', value: 'Firefox', operator: 'exact', type: 'event' },
            ],
          },
          { type: 'AND', values: [{ key: '$browser', value: ['Safari', 'Firefox'], operator: 'exact', type: 'event' }] },
        ],
      },
    })
    expect(counts(global.body.results)).toEqual([1, 1])
    const any = await query({
      series: [
        { kind: 'EventsNode', event: null },
        { kind: 'EventsNode', event: 'paid' },
      ],
    })
    expect(any.body.results[0]).toMatchObject({ name: null, action_id: null, count: 6 })
    expect(any.body.results[1].count).toBe(1)
  })

  it('counts an action as a step, named after it (mirrors test_funnel.py test_funnel_with_actions)', async () => {
    const action = await call('POST', `/api/projects/${t.projectId}/actions/`, {
      name: 'Paid or pro signup',
      steps: [{ event: 'paid' }, { event: 'signed_up', properties: [{ key: 'plan', value: 'pro', type: 'event', operator: 'exact' }] }],
    })
    expect(action.status).toBe(201)
    const res = await query({
      series: [
        { kind: 'EventsNode', event: '$pageview' },
        { kind: 'ActionsNode', id: action.body.id, custom_name: 'Converted' },
      ],
    })
    expect(res.body.results[1]).toMatchObject({
      action_id: action.body.id,
      name: 'Paid or pro signup',
      custom_name: 'Converted',
      type: 'actions',
      count: 1,
    })
    const other = await query({
      series: [
        { kind: 'EventsNode', event: '$pageview' },
        { kind: 'ActionsNode', id: 999999 },
      ],
    })
    expect([other.status, other.body.attr]).toEqual([400, 'series'])
  })

  it("counts only a person's first ever event for first_time_for_user (mirrors test_funnel.py test_funnel_with_first_time_for_user_math)", async () => {
    const res = await query({
      series: [
        { kind: 'EventsNode', event: '$pageview' },
        { kind: 'EventsNode', event: 'signed_up', math: 'first_time_for_user' },
      ],
    })
    expect(counts(res.body.results)).toEqual([4, 2])
    // u4 first signed up before the range: its signup in the range is not a first time.
    const plain = await query({ series: steps('signed_up', '$pageview') })
    expect(counts(plain.body.results)).toEqual([5, 1])
    const first = await query({
      series: [
        { kind: 'EventsNode', event: 'signed_up', math: 'first_time_for_user' },
        { kind: 'EventsNode', event: '$pageview' },
      ],
    })
    expect(counts(first.body.results)).toEqual([4, 1])
  })

  it('breaks down by an event property with first-touch attribution and "Other" (mirrors breakdown_cases.py test_funnel_step_breakdown_event)', async () => {
    const res = await query({
      series: steps('$pageview', 'signed_up'),
      breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
    })
    expect(res.status).toBe(200)
    const byValue = Object.fromEntries(
      res.body.results.map((r: Array<{ breakdown_value: string[]; count: number }>) => [r[0].breakdown_value.join(), counts(r)]),
    )
    expect(byValue).toEqual({ Chrome: [2, 1], Safari: [1, 1], Opera: [1, 0] })
    expect(res.body.results[0][0]).toMatchObject({ breakdown: ['Chrome'], breakdown_value: ['Chrome'] })
    const limited = await query({ series: steps('$pageview', 'signed_up'), breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 } })
    expect(limited.body.results.map((r: Array<{ breakdown_value: string[]; count: number }>) => [r[0].breakdown_value, counts(r)])).toEqual(
      [
        [['Chrome'], [2, 1]],
        [['Other'], [2, 1]],
      ],
    )
  })

  it('attributes a breakdown by last touch, all events and a step', async () => {
    const by = async (funnelsFilter: Record<string, unknown>) => {
      const res = await query({ series: steps('$pageview', 'signed_up'), breakdownFilter: { breakdown: '$browser' }, funnelsFilter })
      expect(res.status).toBe(200)
      return Object.fromEntries(
        res.body.results.map((r: Array<{ breakdown_value: string[]; count: number }>) => [r[0].breakdown_value.join(), counts(r)]),
      )
    }
    expect(await by({ breakdownAttributionType: 'last_touch' })).toEqual({ Chrome: [2, 1], Firefox: [1, 1], Opera: [1, 0] })
    expect(await by({ breakdownAttributionType: 'all_events' })).toEqual({ Chrome: [2, 1], Safari: [1, 0], Opera: [1, 0] })
    expect(await by({ breakdownAttributionType: 'step', breakdownAttributionValue: 1 })).toEqual({
      Chrome: [1, 1],
      Firefox: [1, 1],
      '': [1, 0],
      Opera: [1, 0],
    })
  })

  it('breaks down by several properties and by a person property', async () => {
    const res = await query({
      series: steps('$pageview', 'signed_up'),
      breakdownFilter: {
        breakdowns: [
          { property: '$browser', type: 'event' },
          { property: 'plan', type: 'event' },
        ],
      },
    })
    const values = res.body.results.map((r: Array<{ breakdown_value: string[] }>) => r[0].breakdown_value)
    expect(values).toContainEqual(['Chrome', ''])
  })

  it('breaks down by person, cohort, session and HogQL values (mirrors breakdown_cases.py test_funnel_step_breakdown_person and _cohort)', async () => {
    const by = async (breakdownFilter: Record<string, unknown>) => {
      const res = await query({ series: steps('$pageview', 'signed_up'), breakdownFilter })
      expect(res.status).toBe(200)
      return Object.fromEntries(
        res.body.results.map((r: Array<{ breakdown_value: unknown; count: number }>) => [JSON.stringify(r[0].breakdown_value), counts(r)]),
      )
    }
    expect(await by({ breakdown: 'plan', breakdown_type: 'person' })).toEqual({ '["pro"]': [1, 1], '["free"]': [1, 1], '[""]': [2, 0] })
    expect(await by({ breakdown: '$entry_current_url', breakdown_type: 'session' })).toEqual({
      '["https://a.com/x"]': [1, 1],
      '["https://a.com/y"]': [1, 1],
      '[""]': [2, 0],
    })
    expect(await by({ breakdown: "concat(properties.$browser, '!')", breakdown_type: 'hogql' })).toEqual({
      '["Chrome!"]': [2, 1],
      '["Safari!"]': [1, 1],
      '["Opera!"]': [1, 0],
    })
    const pro = await call('POST', `/api/projects/${t.projectId}/cohorts/`, {
      name: 'Pro',
      filters: { properties: { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person', operator: 'exact' }] } },
    })
    expect(pro.status).toBe(201)
    const res = await query({
      series: steps('$pageview', 'signed_up'),
      breakdownFilter: { breakdown: [pro.body.id, 'all'], breakdown_type: 'cohort' },
    })
    expect(
      res.body.results.map((r: Array<{ breakdown: unknown; breakdown_value: unknown; count: number }>) => [
        r[0].breakdown,
        r[0].breakdown_value,
        counts(r),
      ]),
    ).toEqual([
      ['all users', 'all', [4, 2]],
      ['Pro', pro.body.id, [1, 1]],
    ])
  })

  it('counts groups instead of persons, and actors named by HogQL', async () => {
    const groups = await query({ series: steps('$pageview', 'signed_up'), aggregation_group_type_index: 0 })
    expect(counts(groups.body.results)).toEqual([2, 1])
    const hogql = await query({ series: steps('$pageview', 'signed_up'), funnelsFilter: { funnelAggregateByHogQL: 'properties.$browser' } })
    expect(counts(hogql.body.results)).toEqual([3, 1])

    // The groups behind a step, as PostHog's GroupStrategy lists them: the group objects, by name; search; columns.
    const actors = async (source: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      call('POST', `/api/environments/${t.projectId}/query/`, {
        query: {
          kind: 'ActorsQuery',
          source: {
            kind: 'FunnelsActorsQuery',
            source: { kind: 'FunnelsQuery', series: steps('$pageview', 'signed_up'), ...(source.funnel as object) },
            ...(source.point as object),
          },
          ...extra,
        },
      })
    const keys = (res: { body: { results: Array<Array<{ group_key: string }>> } }) => res.body.results.map((r) => r[0].group_key)
    const byCompany = { aggregation_group_type_index: 0 }
    const entered = await actors({ funnel: byCompany, point: { funnelStep: 1 } })
    expect(entered.status, entered.text).toBe(200)
    expect(entered.body.columns).toEqual(['group'])
    expect(keys(entered)).toEqual(['acme', 'globex'])
    expect(entered.body.results[0][0]).toMatchObject({
      id: 'acme',
      type: 'group',
      group_key: 'acme',
      group_type_index: 0,
      properties: { name: 'Acme Inc', size: 12 },
      group_properties: { name: 'Acme Inc', size: 12 },
    })
    expect(entered.body.results[0][0].created_at).toMatch(/^2026-/)
    expect(entered.body.results[1][0]).toMatchObject({ id: 'globex', properties: {}, created_at: null })
    expect(keys(await actors({ funnel: byCompany, point: { funnelStep: 2 } }))).toEqual(['acme'])
    expect(keys(await actors({ funnel: byCompany, point: { funnelStep: -2 } }))).toEqual(['globex'])
    expect(keys(await actors({ funnel: byCompany, point: { funnelStep: 1 } }, { search: 'inc' }))).toEqual(['acme'])
    const columns = await actors({ funnel: byCompany, point: { funnelStep: 1 } }, { select: ['key', 'properties.name', 'event_count'] })
    expect(columns.body.results).toEqual([
      ['acme', 'Acme Inc', 3],
      ['globex', null, 1],
    ])
    // What cannot apply to groups, or to HogQL actors, is a 400 naming it.
    for (const [res, attr] of [
      [await actors({ funnel: byCompany, point: { funnelStep: 1 } }, { select: ['person'] }), 'select[0]'],
      [
        await actors({ funnel: byCompany, point: { funnelStep: 1 } }, { properties: [{ key: 'plan', value: 'pro', type: 'person' }] }),
        'properties',
      ],
      [
        await actors({ funnel: { funnelsFilter: { funnelAggregateByHogQL: 'properties.$browser' } }, point: { funnelStep: 1 } }),
        'source.source',
      ],
    ] as const)
      expect([res.status, res.body.attr], res.text).toEqual([400, attr])
  })

  it('bins the time to convert (mirrors test_funnel_time_to_convert.py test_auto_bin_count_single_step)', async () => {
    const two = await query({ series: steps('$pageview', 'signed_up'), funnelsFilter: { funnelVizType: 'time_to_convert' } })
    expect(two.status).toBe(200)
    expect(two.body.results).toEqual({
      bins: [
        [1800, 1],
        [2700, 0],
        [3600, 1],
      ],
      average_conversion_time: 2700,
    })
    const whole = await query({ series: steps('$pageview', 'signed_up', 'paid'), funnelsFilter: { funnelVizType: 'time_to_convert' } })
    expect(whole.body.results).toEqual({
      bins: [
        [10800, 1],
        [10860, 0],
      ],
      average_conversion_time: 10800,
    })
    const part = await query({
      series: steps('$pageview', 'signed_up', 'paid'),
      funnelsFilter: { funnelVizType: 'time_to_convert', funnelFromStep: 1, funnelToStep: 2, binCount: 2 },
    })
    expect(part.body.results.average_conversion_time).toBe(7200)
  })

  it("draws the conversion rate of each day's entrants (mirrors test_funnel_trends.py test_only_one_user_reached_one_step)", async () => {
    const res = await query({ series: steps('$pageview', 'signed_up'), funnelsFilter: { funnelVizType: 'trends' } })
    expect(res.status).toBe(200)
    expect(res.body.results).toEqual([
      {
        count: 8,
        data: [0, 100, 100, 0, 0, 0, 0, 0],
        days: ['2026-03-08', '2026-03-09', '2026-03-10', '2026-03-11', '2026-03-12', '2026-03-13', '2026-03-14', '2026-03-15'],
        labels: ['8-Mar-2026', '9-Mar-2026', '10-Mar-2026', '11-Mar-2026', '12-Mar-2026', '13-Mar-2026', '14-Mar-2026', '15-Mar-2026'],
      },
    ])
    const byBrowser = await query({
      series: steps('$pageview', 'signed_up'),
      funnelsFilter: { funnelVizType: 'trends' },
      breakdownFilter: { breakdown: '$browser' },
    })
    const chrome = byBrowser.body.results.find((r: { breakdown_value: string[] }) => r.breakdown_value[0] === 'Chrome')
    expect(chrome.data).toEqual([0, 100, 0, 0, 0, 0, 0, 0])
  })

  it('computes saved funnels, from a query or a legacy FUNNELS filter, and on a dashboard tile', async () => {
    const at = (path: string) => `/api/projects/${t.projectId}${path}`
    const source = { kind: 'FunnelsQuery', series: steps('$pageview', 'signed_up', 'paid') }
    const saved = await call('POST', at('/insights/'), { name: 'Signup funnel', query: { kind: 'InsightVizNode', source } })
    expect(saved.status).toBe(201)
    const read = await call('GET', at(`/insights/${saved.body.id}/`))
    expect(read.status).toBe(200)
    expect(counts(read.body.result)).toEqual([4, 2, 1])
    expect(read.body.result_unavailable).toBe(null)
    const legacy = await call('POST', at('/insights/'), {
      name: 'Legacy funnel',
      filters: {
        insight: 'FUNNELS',
        events: [
          { id: 'signed_up', order: 1 },
          { id: '$pageview', order: 0 },
        ],
        funnel_window_interval: 45,
        funnel_window_interval_unit: 'minute',
      },
    })
    expect(legacy.status).toBe(201)
    const legacyRead = await call('GET', at(`/insights/${legacy.body.id}/`))
    expect(legacyRead.body.result.map((s: { name: string; count: number }) => [s.name, s.count])).toEqual([
      ['$pageview', 4],
      ['signed_up', 1],
    ])
    const ttc = await call('POST', at('/insights/'), {
      name: 'Time to convert',
      query: { kind: 'InsightVizNode', source: { ...source, funnelsFilter: { funnelVizType: 'time_to_convert' } } },
    })
    expect((await call('GET', at(`/insights/${ttc.body.id}/`))).body.result).toMatchObject({ average_conversion_time: 10800 })
    const board = await call('POST', `/api/environments/${t.projectId}/dashboards/`, { name: 'Funnels' })
    await call('PATCH', at(`/insights/${saved.body.id}/`), { dashboards: [board.body.id] })
    const tiles = await call('GET', at(`/dashboards/${board.body.id}/`))
    expect(counts(tiles.body.tiles[0].insight.result)).toEqual([4, 2, 1])
    const bad = await call('POST', at('/insights/'), {
      filters: { insight: 'FUNNELS', events: [{ id: 'a' }, { id: 'b' }], funnel_order_type: 'sideways' },
    })
    expect([bad.status, bad.body.attr]).toEqual([400, 'funnel_order_type'])
  })

  it('lists the persons who reached a step or dropped off, per breakdown value, with paging (mirrors test_funnel_persons.py test_first_step and test_last_step_dropoff)', async () => {
    const funnel = { kind: 'FunnelsQuery', series: steps('$pageview', 'signed_up', 'paid') }
    const persons = async (source: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
      const res = await call('POST', `/api/environments/${t.projectId}/query/`, {
        query: { kind: 'ActorsQuery', select: ['person'], source: { kind: 'FunnelsActorsQuery', source: funnel, ...source }, ...extra },
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return { ids: res.body.results.map((r: Array<{ distinct_ids: string[] }>) => r[0].distinct_ids[0]).sort(), hasMore: res.body.hasMore }
    }
    expect((await persons({ funnelStep: 1 })).ids).toEqual(['u1', 'u2', 'u3', 'u5'])
    expect((await persons({ funnelStep: 2 })).ids).toEqual(['u1', 'u2'])
    expect((await persons({ funnelStep: -2 })).ids).toEqual(['u3', 'u5'])
    expect((await persons({ funnelStep: -3 })).ids).toEqual(['u2'])
    const page = await persons({ funnelStep: 1 }, { limit: 3 })
    expect([page.ids.length, page.hasMore]).toEqual([3, true])
    funnel.series = steps('$pageview', 'signed_up')
    Object.assign(funnel, { breakdownFilter: { breakdown: '$browser' } })
    expect((await persons({ funnelStep: 1, funnelStepBreakdown: ['Chrome'] })).ids).toEqual(['u1', 'u3'])
    expect((await persons({ funnelStep: 2, funnelStepBreakdown: 'Safari' })).ids).toEqual(['u2'])
    // With one value kept, "Other" holds the persons of every value past it (Safari and Opera), at each step.
    const other = async (funnelStep: number) => {
      const kept = { ...funnel, breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 } }
      const res = await call('POST', `/api/environments/${t.projectId}/query/`, {
        query: {
          kind: 'ActorsQuery',
          select: ['person'],
          source: { kind: 'FunnelsActorsQuery', source: kept, funnelStep, funnelStepBreakdown: ['Other'] },
        },
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body.results.map((r: Array<{ distinct_ids: string[] }>) => r[0].distinct_ids[0]).sort()
    }
    for (const step of [1, 2]) {
      const values = await Promise.all(['Safari', 'Opera'].map((v) => persons({ funnelStep: step, funnelStepBreakdown: [v] })))
      expect(await other(step)).toEqual(values.flatMap((v) => v.ids).sort())
    }
    expect(await other(1)).toHaveLength(2)
    Object.assign(funnel, { breakdownFilter: undefined, funnelsFilter: { funnelVizType: 'trends' } })
    expect((await persons({ funnelTrendsEntrancePeriodStart: '2026-03-11', funnelTrendsDropOff: true })).ids).toEqual(['u3'])
    expect((await persons({ funnelTrendsEntrancePeriodStart: '2026-03-09 00:00:00', funnelTrendsDropOff: false })).ids).toEqual(['u1'])
    for (const funnelStep of [0, -1, 4]) {
      const bad = await call('POST', `/api/environments/${t.projectId}/query/`, {
        query: {
          kind: 'ActorsQuery',
          source: { kind: 'FunnelsActorsQuery', funnelStep, source: { kind: 'FunnelsQuery', series: steps('a', 'b', 'c') } },
        },
      })
      expect([bad.status, bad.body.attr]).toEqual([400, 'source.funnelStep'])
    }
  })

  it('refuses bad funnel input with a 400 naming the field', async () => {
    const bad = async (q: Record<string, unknown>, attr: string) => {
      const res = await query({ series: steps('$pageview', 'signed_up'), ...q })
      expect(res.status).toBe(400)
      expect(res.body.attr).toBe(attr)
    }
    await bad({ funnelsFilter: { funnelOrderType: 'sideways' } }, 'funnelsFilter.funnelOrderType')
    await bad({ funnelsFilter: { funnelWindowIntervalUnit: 'fortnight' } }, 'funnelsFilter.funnelWindowIntervalUnit')
    await bad({ funnelsFilter: { funnelVizType: 'pie' } }, 'funnelsFilter.funnelVizType')
    await bad(
      { funnelsFilter: { exclusions: [{ kind: 'EventsNode', event: 'clicked', funnelFromStep: 0, funnelToStep: 3 }] } },
      'funnelsFilter.exclusions[0]',
    )
    await bad({ funnelsFilter: { funnelToStep: 5 } }, 'funnelsFilter.funnelToStep')
  })
})
