// Experiments through the API on real chDB (their fields and types: test/http/posthog-shapes.test.ts): create (its multivariate flag
// made, inactive while a draft, or an existing flag taken when it has a control variant), list, retrieve, launch
// (the flag goes active) and stop by PATCH, metrics validated as ExperimentMetric, soft delete, and the scopes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, startWren, type TestWren } from '../support/wren'

const meanMetric = (event: string) => ({ kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'EventsNode', event } })

describe('experiments API', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  const base = () => `/api/projects/${t.projectId}/experiments/`
  const flag = async (key: string) =>
    (await call('GET', `/api/projects/${t.projectId}/feature_flags/?search=${key}`)).body.results.find(
      (f: { key: string }) => f.key === key,
    )

  beforeAll(async () => {
    t = await startWren({ WREN_OWNER_EMAIL: 'lab@example.com', WREN_OWNER_PASSWORD: 'lab passphrase' })
    call = api(t)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('creates a draft with its flag, control and test at 50/50 and inactive', async () => {
    const made = await call('POST', base(), {
      name: 'Checkout button',
      description: 'Green or blue?',
      feature_flag_key: 'checkout-button',
      parameters: { minimum_detectable_effect: 5 },
      metrics: [meanMetric('purchase')],
    })
    expect(made.status, made.text).toBe(201)
    expect(made.body).toMatchObject({
      name: 'Checkout button',
      start_date: null,
      end_date: null,
      feature_flag_key: 'checkout-button',
      feature_flag: {
        key: 'checkout-button',
        active: false,
        filters: {
          multivariate: {
            variants: [
              { key: 'control', rollout_percentage: 50 },
              { key: 'test', rollout_percentage: 50 },
            ],
          },
        },
      },
      archived: false,
      deleted: false,
      type: 'product',
      created_by: { email: 'lab@example.com' },
      stats_config: { method: 'bayesian' },
      exposure_criteria: { filterTestAccounts: true },
      metrics: [{ kind: 'ExperimentMetric', metric_type: 'mean', uuid: expect.any(String) }],
    })
    expect((await call('GET', `${base()}${made.body.id}/`)).body).toEqual(made.body)
    expect((await flag('checkout-button')).name).toBe('Feature Flag for Experiment Checkout button')
    // Its own variants, three of them.
    const three = await call('POST', base(), {
      name: 'Pricing page',
      feature_flag_key: 'pricing-page',
      parameters: {
        feature_flag_variants: [
          { key: 'control', rollout_percentage: 34 },
          { key: 'cheap', rollout_percentage: 33 },
          { key: 'premium', rollout_percentage: 33 },
        ],
      },
    })
    expect(three.status, three.text).toBe(201)
    expect(three.body.feature_flag.filters.multivariate.variants.map((v: { key: string }) => v.key)).toEqual([
      'control',
      'cheap',
      'premium',
    ])
  })

  it('takes an existing flag when it has a control variant, and refuses one that has not, as PostHog does', async () => {
    const flags = `/api/projects/${t.projectId}/feature_flags/`
    const variants = (keys: string[]) => ({
      groups: [{ rollout_percentage: 100 }],
      multivariate: { variants: keys.map((key, _, all) => ({ key, rollout_percentage: 100 / all.length })) },
    })
    await call('POST', flags, { key: 'has-control', filters: variants(['control', 'new']) })
    await call('POST', flags, { key: 'no-control', filters: variants(['a', 'b']) })
    await call('POST', flags, { key: 'boolean-flag', filters: { groups: [{ rollout_percentage: 100 }] } })
    const taken = await call('POST', base(), { name: 'On an existing flag', feature_flag_key: 'has-control' })
    expect(taken.status, taken.text).toBe(201)
    expect(taken.body.feature_flag.id).toBe((await flag('has-control')).id)
    const noControl = await call('POST', base(), { name: 'x', feature_flag_key: 'no-control' })
    expect([noControl.status, noControl.body.detail]).toEqual([400, "Feature flag must have a variant with key 'control'"])
    const boolean = await call('POST', base(), { name: 'x', feature_flag_key: 'boolean-flag' })
    expect([boolean.status, boolean.body.detail]).toEqual([
      400,
      'Feature flag must have at least 2 variants (control and at least one test variant)',
    ])
    const noControlVariants = await call('POST', base(), {
      name: 'x',
      feature_flag_key: 'fresh-key',
      parameters: { feature_flag_variants: [{ key: 'a', rollout_percentage: 100 }] },
    })
    expect([noControlVariants.status, noControlVariants.body.detail]).toEqual([400, 'Feature flag variants must contain a control variant'])
    expect(await flag('fresh-key')).toBeUndefined()
  })

  it('refuses metrics and statistics Wren cannot compute with a 400 naming them', async () => {
    const refused = async (metric: unknown) => {
      const r = await call('POST', base(), { name: 'bad metric', feature_flag_key: 'bad-metric', metrics: [metric] })
      expect(r.status, r.text).toBe(400)
      return r.body.attr
    }
    expect(await refused({ kind: 'ExperimentMetric', metric_type: 'retention' })).toBe('metrics[0].metric_type')
    expect(await refused({ ...meanMetric('x'), source: { kind: 'EventsNode', event: 'x', math: 'dau' } })).toBe('metrics[0].source')
    expect(await refused({ ...meanMetric('x'), source: { kind: 'ExperimentDataWarehouseNode', table_name: 't' } })).toBe(
      'metrics[0].source',
    )
    expect(await refused({ kind: 'ExperimentMetric', metric_type: 'funnel', series: [], funnel_order_type: 'ordered' })).toBe(
      'metrics[0].series',
    )
    expect(await refused({ ...meanMetric('x'), lower_bound_percentile: 0.05 })).toBe('metrics[0].lower_bound_percentile')
    expect(await refused({ kind: 'ExperimentTrendsQuery', count_query: {} })).toBe('metrics[0]')
    expect(await flag('bad-metric')).toBeUndefined()
    // Statistics other than PostHog's default Bayesian relative difference, likewise.
    for (const stats_config of [{ method: 'frequentist' }, { bayesian: { difference_type: 'ABSOLUTE' } }]) {
      const r = await call('POST', base(), { name: 'other stats', feature_flag_key: 'other-stats', stats_config })
      expect([r.status, r.body.attr]).toEqual([400, 'stats_config'])
    }
  })

  it('refuses an exposure query naming a holdout or another flag, rather than leave either out', async () => {
    const made = await call('POST', base(), { name: 'exposures asked', feature_flag_key: 'exposures-asked' })
    expect(made.status, made.text).toBe(201)
    const exposures = (extra: Record<string, unknown>) =>
      call('POST', `/api/environments/${t.projectId}/query/`, {
        query: { kind: 'ExperimentExposureQuery', experiment_id: made.body.id, ...extra },
      })
    // As PostHog's tools send it: the experiment's own flag, no holdout.
    const asked = await exposures({ feature_flag: made.body.feature_flag, holdout: null })
    expect(asked.status, asked.text).toBe(200)
    expect(asked.body.kind).toBe('ExperimentExposureQuery')
    for (const [extra, attr] of [
      [{ holdout: { id: 1, filters: [] } }, 'holdout'],
      [{ feature_flag: { key: 'another-flag' } }, 'feature_flag'],
      [{ feature_flag: 'exposures-asked' }, 'feature_flag'],
    ] as const) {
      const refused = await exposures(extra)
      expect([refused.status, refused.body.attr], refused.text).toEqual([400, attr])
    }
    expect((await call('DELETE', `${base()}${made.body.id}/`)).status).toBe(204)
  })

  it('launches (the flag goes active), stops, archives, lists and deletes softly', async () => {
    const [draft] = (await call('GET', `${base()}?search=checkout`)).body.results
    const launched = await call('PATCH', `${base()}${draft.id}/`, { start_date: '2026-11-20T10:00:00Z' })
    expect(launched.status, launched.text).toBe(200)
    expect(launched.body).toMatchObject({ start_date: '2026-11-20T10:00:00.000Z', end_date: null, feature_flag: { active: true } })
    expect((await flag('checkout-button')).active).toBe(true)
    // A launched experiment's variants and its flag's key stay.
    const variants = await call('PATCH', `${base()}${draft.id}/`, {
      parameters: { feature_flag_variants: [{ key: 'control', rollout_percentage: 100 }] },
    })
    expect([variants.status, variants.body.detail]).toEqual([400, "Can't update feature_flag_variants on Experiment"])
    expect((await call('PATCH', `${base()}${draft.id}/`, { feature_flag_key: 'other' })).status).toBe(400)
    const stopped = await call('PATCH', `${base()}${draft.id}/`, {
      end_date: '2026-11-27T10:00:00Z',
      conclusion: 'won',
      conclusion_comment: 'Green wins',
      archived: true,
    })
    expect(stopped.body).toMatchObject({ end_date: '2026-11-27T10:00:00.000Z', conclusion: 'won', archived: true })
    expect((await call('PATCH', `${base()}${draft.id}/`, { end_date: '2026-11-01T00:00:00Z' })).status).toBe(400)
    const names = async (query: string) => (await call('GET', `${base()}${query}`)).body.results.map((e: { name: string }) => e.name)
    expect(await names('')).toEqual(['On an existing flag', 'Pricing page', 'Checkout button'])
    expect(await names('?archived=true')).toEqual(['Checkout button'])
    const page = (await call('GET', `${base()}?limit=2`)).body
    expect(page).toMatchObject({ count: 3, previous: null, next: expect.stringContaining('offset=2') })
    const [pricing] = (await call('GET', `${base()}?search=pricing`)).body.results
    expect((await call('DELETE', `${base()}${pricing.id}/`)).status).toBe(204)
    expect((await call('GET', `${base()}${pricing.id}/`)).status).toBe(404)
    expect((await call('PATCH', `${base()}${draft.id}/`, { deleted: true })).body.deleted).toBe(true)
    expect(await names('')).toEqual(['On an existing flag'])
    // Their flags stay, as PostHog leaves them.
    expect((await flag('pricing-page')).deleted).toBe(false)
  })

  it('needs experiment:read to list and experiment:write to change, on both prefixes', async () => {
    const reader = await call('POST', '/api/personal_api_keys/', { label: 'reader', scopes: ['experiment:read'] })
    expect((await call('GET', base(), undefined, reader.body.value)).status).toBe(200)
    expect((await call('GET', `/api/environments/${t.projectId}/experiments/`, undefined, reader.body.value)).status).toBe(200)
    const refused = await call('POST', base(), { name: 'nope', feature_flag_key: 'nope' }, reader.body.value)
    expect(refused.status).toBe(403)
    const flagsOnly = await call('POST', '/api/personal_api_keys/', { label: 'flags', scopes: ['feature_flag:write'] })
    expect((await call('GET', base(), undefined, flagsOnly.body.value)).status).toBe(403)
  })
})
