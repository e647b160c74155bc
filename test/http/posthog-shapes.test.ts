// The fields PostHog's own tools read: each answer of the insight, dashboard, tile, flag, cohort and property
// definition routes is held against the field names and JSON types of PostHog's serializers
// (posthog/api/insight.py InsightSerializer, dashboards/dashboard.py DashboardSerializer, DashboardBasicSerializer
// and DashboardTileSerializer, feature_flag.py FeatureFlagSerializer, cohort.py CohortSerializer,
// property_definition.py PropertyDefinitionSerializer, ee/clickhouse/views/experiments.py ExperimentSerializer,
// survey.py SurveySerializer), and the OpenAPI document must declare them. Also a
// dynamic cohort created with `groups: []` and defined after, as a CLI for PostHog does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { createKey } from '../support/management'

type Json = 'string' | 'datetime' | 'number' | 'boolean' | 'object' | 'array' | 'null'
type Shape = Record<string, Json[]>

const INSIGHT: Shape = {
  id: ['number'],
  short_id: ['string'],
  name: ['string', 'null'],
  derived_name: ['string', 'null'],
  filters: ['object'],
  filters_hash: ['string'],
  query: ['object', 'null'],
  order: ['number', 'null'],
  deleted: ['boolean'],
  dashboards: ['array'],
  dashboard_tiles: ['array'],
  last_refresh: ['datetime', 'null'],
  cache_target_age: ['string', 'null'],
  next_allowed_client_refresh: ['datetime', 'null'],
  result: ['array', 'object', 'null'],
  hasMore: ['boolean', 'null'],
  columns: ['array', 'null'],
  created_at: ['datetime'],
  created_by: ['object', 'null'],
  description: ['string', 'null'],
  updated_at: ['datetime'],
  tags: ['array'],
  favorited: ['boolean'],
  saved: ['boolean'],
  last_modified_at: ['datetime'],
  last_modified_by: ['object', 'null'],
  is_sample: ['boolean'],
  effective_restriction_level: ['number'],
  effective_privilege_level: ['number'],
  timezone: ['string', 'null'],
  is_cached: ['boolean'],
  query_status: ['object', 'null'],
  hogql: ['string', 'null'],
  types: ['array', 'null'],
}
const INSIGHT_TILE: Shape = { id: ['number'], dashboard_id: ['number'], deleted: ['boolean', 'null'] }
const DASHBOARD_BASIC: Shape = {
  id: ['number'],
  name: ['string', 'null'],
  description: ['string'],
  pinned: ['boolean'],
  created_at: ['datetime'],
  created_by: ['object', 'null'],
  last_accessed_at: ['datetime', 'null'],
  last_viewed_at: ['datetime', 'null'],
  is_shared: ['boolean'],
  deleted: ['boolean'],
  creation_mode: ['string'],
  tags: ['array'],
  restriction_level: ['number'],
  effective_restriction_level: ['number'],
  effective_privilege_level: ['number'],
  user_access_level: ['string', 'null'],
  access_control_version: ['string'],
  last_refresh: ['datetime', 'null'],
  team_id: ['number'],
}
const DASHBOARD: Shape = {
  ...DASHBOARD_BASIC,
  filters: ['object'],
  variables: ['object', 'null'],
  breakdown_colors: ['array', 'object', 'null'],
  data_color_theme_id: ['number', 'null'],
  persisted_filters: ['object', 'null'],
  persisted_variables: ['object', 'null'],
  quick_filter_ids: ['array'],
  tiles: ['array'],
}
const TILE: Shape = {
  id: ['number'],
  insight: ['object', 'null'],
  text: ['object', 'null'],
  button_tile: ['object', 'null'],
  layouts: ['object'],
  color: ['string', 'null'],
  filters_overrides: ['object', 'null'],
  show_description: ['boolean', 'null'],
  transparent_background: ['boolean', 'null'],
  order: ['number'],
  last_refresh: ['datetime', 'null'],
  is_cached: ['boolean'],
}
const FLAG: Shape = {
  id: ['number'],
  name: ['string'],
  key: ['string'],
  filters: ['object'],
  deleted: ['boolean'],
  active: ['boolean'],
  created_by: ['object', 'null'],
  created_at: ['datetime'],
  updated_at: ['datetime', 'null'],
  version: ['number'],
  last_modified_by: ['object', 'null'],
  is_simple_flag: ['boolean'],
  rollout_percentage: ['number', 'null'],
  ensure_experience_continuity: ['boolean', 'null'],
  experiment_set: ['array'],
  surveys: ['array', 'object'],
  features: ['array', 'object'],
  rollback_conditions: ['array', 'object', 'null'],
  performed_rollback: ['boolean', 'null'],
  can_edit: ['boolean'],
  tags: ['array'],
  evaluation_tags: ['array'],
  usage_dashboard: ['number', 'null'],
  analytics_dashboards: ['array'],
  has_enriched_analytics: ['boolean', 'null'],
  user_access_level: ['string', 'null'],
  creation_context: ['string'],
  is_remote_configuration: ['boolean', 'null'],
  has_encrypted_payloads: ['boolean', 'null'],
  status: ['string'],
  evaluation_runtime: ['string', 'null'],
  bucketing_identifier: ['string', 'null'],
  last_called_at: ['datetime', 'null'],
}
const COHORT: Shape = {
  id: ['number'],
  name: ['string', 'null'],
  description: ['string'],
  groups: ['array', 'object'],
  deleted: ['boolean'],
  filters: ['object', 'null'],
  query: ['object', 'null'],
  version: ['number', 'null'],
  pending_version: ['number', 'null'],
  is_calculating: ['boolean'],
  created_by: ['object', 'null'],
  created_at: ['datetime', 'null'],
  last_calculation: ['datetime', 'null'],
  errors_calculating: ['number'],
  last_error_message: ['string', 'null'],
  count: ['number', 'null'],
  is_static: ['boolean'],
  cohort_type: ['string', 'null'],
  experiment_set: ['array'],
}
/** ExperimentSerializer's fields; `feature_flag` is the flag as MinimalFeatureFlagSerializer writes it. */
const EXPERIMENT: Shape = {
  id: ['number'],
  name: ['string'],
  description: ['string', 'null'],
  start_date: ['datetime', 'null'],
  end_date: ['datetime', 'null'],
  feature_flag_key: ['string'],
  feature_flag: ['object'],
  holdout: ['object', 'null'],
  holdout_id: ['number', 'null'],
  exposure_cohort: ['number', 'null'],
  parameters: ['object', 'null'],
  secondary_metrics: ['array', 'null'],
  saved_metrics: ['array'],
  saved_metrics_ids: ['array', 'null'],
  filters: ['object'],
  archived: ['boolean'],
  deleted: ['boolean', 'null'],
  created_by: ['object', 'null'],
  created_at: ['datetime'],
  updated_at: ['datetime'],
  type: ['string', 'null'],
  metrics: ['array', 'null'],
  metrics_secondary: ['array', 'null'],
  stats_config: ['object', 'null'],
  exposure_criteria: ['object', 'null'],
  conclusion: ['string', 'null'],
  conclusion_comment: ['string', 'null'],
}
const MINIMAL_FLAG: Shape = {
  id: ['number'],
  team_id: ['number'],
  name: ['string'],
  key: ['string'],
  filters: ['object'],
  deleted: ['boolean'],
  active: ['boolean'],
  ensure_experience_continuity: ['boolean', 'null'],
}
const PROPERTY_DEFINITION: Shape = {
  id: ['string'],
  name: ['string'],
  is_numerical: ['boolean'],
  property_type: ['string', 'null'],
  tags: ['array'],
  is_seen_on_filtered_events: ['boolean', 'null'],
}

/** posthog/api/survey.py SurveySerializer. */
const SURVEY: Shape = {
  id: ['string'],
  name: ['string'],
  description: ['string'],
  type: ['string'],
  schedule: ['string', 'null'],
  linked_flag: ['object', 'null'],
  linked_flag_id: ['number', 'null'],
  targeting_flag: ['object', 'null'],
  internal_targeting_flag: ['object', 'null'],
  questions: ['array', 'null'],
  conditions: ['object', 'null'],
  appearance: ['object', 'null'],
  created_at: ['datetime'],
  created_by: ['object', 'null'],
  start_date: ['datetime', 'null'],
  end_date: ['datetime', 'null'],
  archived: ['boolean'],
  responses_limit: ['number', 'null'],
  feature_flag_keys: ['array'],
  iteration_count: ['number', 'null'],
  iteration_frequency_days: ['number', 'null'],
  iteration_start_dates: ['array', 'null'],
  current_iteration: ['number', 'null'],
  current_iteration_start_date: ['datetime', 'null'],
  response_sampling_start_date: ['datetime', 'null'],
  response_sampling_interval_type: ['string', 'null'],
  response_sampling_interval: ['number', 'null'],
  response_sampling_limit: ['number', 'null'],
  response_sampling_daily_limits: ['array', 'object', 'null'],
  enable_partial_responses: ['boolean', 'null'],
  user_access_level: ['string', 'null'],
}

function jsonType(value: unknown): Json | 'missing' {
  if (value === undefined) return 'missing'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'string') return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(value) ? 'datetime' : 'string'
  return typeof value as Json
}

/** Every field of `shape` the answer lacks or carries with another JSON type, as `name: type`. */
function mismatches(body: Record<string, unknown>, shape: Shape): string[] {
  return Object.entries(shape).flatMap(([field, types]) => {
    const found = jsonType(body[field])
    // A date-time is a string too, for fields PostHog types as plain strings.
    const fits = types.includes(found as Json) || (found === 'datetime' && types.includes('string'))
    return fits ? [] : [`${field}: ${found}`]
  })
}

describe("the fields PostHog's tools read", () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  const at = (path: string) => `/api/projects/${t.projectId}${path}`

  beforeAll(async () => {
    t = await startWren()
    call = api(t)
    await captureBatch(t, [
      {
        event: '$pageview',
        distinct_id: 'u1',
        timestamp: new Date().toISOString(),
        properties: { $current_url: 'https://example.com/', $set: { plan: 'pro' } },
      },
      { event: '$pageview', distinct_id: 'u2', timestamp: new Date().toISOString(), properties: { $set: { plan: 'free' } } },
    ])
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('insights, dashboards and their tiles carry every field of PostHog’s serializers, with its types', async () => {
    const filters = { insight: 'TRENDS', events: [{ id: '$pageview' }], date_from: '-7d' }
    const insight = await call('POST', at('/insights/'), { name: 'Views', filters, saved: true })
    expect(insight.status, insight.text).toBe(201)
    expect(mismatches(insight.body, INSIGHT)).toEqual([])
    // PostHog's tools read updated_at beside last_modified_at: any write moves the one, only a change to
    // what the insight shows (name, description, filters, query) the other.
    expect(insight.body.updated_at).toBe(insight.body.last_modified_at)
    const favorited = await call('PATCH', at(`/insights/${insight.body.id}/`), { favorited: true })
    expect(favorited.body.updated_at > insight.body.updated_at).toBe(true)
    expect(favorited.body.last_modified_at).toBe(insight.body.last_modified_at)
    const described = await call('PATCH', at(`/insights/${insight.body.id}/`), { description: 'views' })
    expect(described.body.last_modified_at > insight.body.last_modified_at).toBe(true)
    expect(described.body.updated_at).toBe(described.body.last_modified_at)

    const dashboard = await call('POST', at('/dashboards/'), { name: 'Board', tiles: [{ text: { body: 'hello' } }] })
    expect(dashboard.status, dashboard.text).toBe(201)
    await call('PATCH', at(`/insights/${insight.body.id}/`), { dashboards: [dashboard.body.id] })
    const read = await call('GET', at(`/dashboards/${dashboard.body.id}/`))
    expect(mismatches(read.body, DASHBOARD)).toEqual([])
    expect(read.body.tiles.map((tile: any) => mismatches(tile, TILE))).toEqual([[], []])
    // order is each tile's place on the dashboard.
    expect(read.body.tiles.map((tile: any) => tile.order)).toEqual([0, 1])
    const insightTile = read.body.tiles.find((tile: any) => tile.insight)
    expect(mismatches(insightTile.insight, INSIGHT)).toEqual([])
    expect(insightTile.last_refresh).toBe(insightTile.insight.last_refresh)

    const listed = await call('GET', at('/dashboards/'))
    expect(listed.body.results.map((d: any) => mismatches(d, DASHBOARD_BASIC))).toEqual(listed.body.results.map(() => []))
    const insights = await call('GET', at('/insights/'))
    const mine = insights.body.results.find((i: any) => i.id === insight.body.id)
    expect(mismatches(mine, INSIGHT)).toEqual([])
    expect(mine.dashboard_tiles.map((tile: any) => mismatches(tile, INSIGHT_TILE))).toEqual([[]])

    // A key that may only read is told it can only view.
    const reader = await createKey(t, ['insight:read', 'dashboard:read'])
    const asReader = api({ url: t.url, personalKey: reader.value })
    expect((await asReader('GET', at(`/insights/${insight.body.id}/`))).body.effective_privilege_level).toBe(21)
    expect((await asReader('GET', at(`/dashboards/${dashboard.body.id}/`))).body).toMatchObject({
      effective_privilege_level: 21,
      user_access_level: 'viewer',
    })
    expect(mine.effective_privilege_level).toBe(37)
  })

  it('flags, cohorts, surveys and property definitions carry every field of PostHog’s serializers, with its types', async () => {
    const flag = await call('POST', at('/feature_flags/'), {
      key: 'beta',
      filters: { groups: [{ properties: [], rollout_percentage: 50 }] },
    })
    expect(flag.status, flag.text).toBe(201)
    expect(mismatches(flag.body, FLAG)).toEqual([])
    const reader = await createKey(t, ['feature_flag:read'])
    const asReader = await api({ url: t.url, personalKey: reader.value })('GET', at(`/feature_flags/${flag.body.id}/`))
    expect(asReader.body).toMatchObject({ can_edit: false, user_access_level: 'viewer' })
    expect(flag.body).toMatchObject({ can_edit: true, user_access_level: 'editor' })

    const cohort = await call('POST', at('/cohorts/'), {
      name: 'Pro',
      filters: { properties: { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] } },
    })
    expect(cohort.status, cohort.text).toBe(201)
    expect(mismatches(cohort.body, COHORT)).toEqual([])
    expect(cohort.body).toMatchObject({ count: 1, is_calculating: false, cohort_type: 'person_property', errors_calculating: 0 })

    const flagged = await call('POST', at('/feature_flags/'), {
      key: 'survey-gate',
      filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
    })
    const survey = await call('POST', at('/surveys/'), {
      name: 'Shape',
      type: 'popover',
      linked_flag_id: flagged.body.id,
      targeting_flag_filters: { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }], rollout_percentage: 100 }] },
      questions: [{ type: 'open', question: 'Why?' }],
      conditions: { url: 'example.com' },
      appearance: { position: 'right' },
      start_date: '2026-11-01T00:00:00Z',
      iteration_count: 2,
      iteration_frequency_days: 7,
    })
    expect(survey.status, survey.text).toBe(201)
    expect(mismatches(survey.body, SURVEY)).toEqual([])
    const surveys = await call('GET', at('/surveys/'))
    expect(surveys.body.results.map((s: any) => mismatches(s, SURVEY))).toEqual([[]])

    const definitions = await call('GET', at('/property_definitions/?limit=1000'))
    expect(definitions.body.results.length).toBeGreaterThan(0)
    expect(definitions.body.results.map((d: any) => mismatches(d, PROPERTY_DEFINITION))).toEqual(definitions.body.results.map(() => []))
  })

  it('experiments carry every field of PostHog’s ExperimentSerializer, with its types', async () => {
    const made = await call('POST', at('/experiments/'), {
      name: 'Checkout',
      feature_flag_key: 'checkout-experiment',
      metrics: [{ kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'EventsNode', event: '$pageview' } }],
    })
    expect(made.status, made.text).toBe(201)
    expect(mismatches(made.body, EXPERIMENT)).toEqual([])
    expect(mismatches(made.body.feature_flag, MINIMAL_FLAG)).toEqual([])
    const launched = await call('PATCH', at(`/experiments/${made.body.id}/`), { start_date: '2026-11-20T10:00:00Z' })
    expect(mismatches(launched.body, EXPERIMENT)).toEqual([])
    const listed = await call('GET', at('/experiments/'))
    expect(listed.body.results.map((e: any) => mismatches(e, EXPERIMENT))).toEqual([[]])
  })

  it('the OpenAPI document declares every one of those fields', async () => {
    const doc = (await call('GET', '/api/schema/')).body
    const declared = (path: string, status: string, pick: (schema: any) => any = (s) => s) => {
      const schema = pick(doc.paths[path].get?.responses?.[status]?.content?.['application/json']?.schema)
      return Object.keys(schema?.properties ?? {})
    }
    const project = '/api/projects/{project_id}'
    const missing = (keys: string[], shape: Shape) => Object.keys(shape).filter((f) => !keys.includes(f))
    expect(missing(declared(`${project}/insights/{id}/`, '200'), INSIGHT)).toEqual([])
    const dashboard = declared(`${project}/dashboards/{id}/`, '200')
    expect(missing(dashboard, DASHBOARD)).toEqual([])
    const tile = (doc.paths[`${project}/dashboards/{id}/`].get.responses['200'].content['application/json'].schema as any).properties.tiles
      .items
    expect(missing(Object.keys(tile.properties), TILE)).toEqual([])
    expect(missing(declared(`${project}/feature_flags/{id}/`, '200'), FLAG)).toEqual([])
    expect(missing(declared(`${project}/cohorts/{id}/`, '200'), COHORT)).toEqual([])
    expect(missing(declared(`${project}/experiments/{id}/`, '200'), EXPERIMENT)).toEqual([])
    expect(missing(declared(`${project}/surveys/{id}/`, '200'), SURVEY)).toEqual([])
    expect(
      missing(
        declared(`${project}/dashboards/`, '200', (s) => s.properties.results.items),
        DASHBOARD_BASIC,
      ),
    ).toEqual([])
  })

  it('takes a dynamic cohort created with groups: [] — no one until it is given filters — and its edit', async () => {
    const empty = await call('POST', at('/cohorts/'), { name: 'Later', is_static: false, groups: [] })
    expect(empty.status, empty.text).toBe(201)
    expect(empty.body).toMatchObject({ is_static: false, count: 0 })
    const filtered = (cohortId: number) =>
      call('GET', at(`/persons/?properties=${encodeURIComponent(JSON.stringify([{ type: 'cohort', key: 'id', value: cohortId }]))}`))
    expect((await filtered(empty.body.id)).body.results).toEqual([])

    const edited = await call('PATCH', at(`/cohorts/${empty.body.id}/`), {
      filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'plan', value: 'free', type: 'person' }] }] } },
    })
    expect(edited.status, edited.text).toBe(200)
    expect(edited.body).toMatchObject({ count: 1, version: 2 })
    expect((await filtered(empty.body.id)).body.results.map((p: any) => p.distinct_ids)).toEqual([['u2']])

    // Saying nothing of a dynamic cohort's definition is still a mistake.
    const unsaid = await call('POST', at('/cohorts/'), { name: 'Nothing' })
    expect(unsaid.status).toBe(400)
  })
})
