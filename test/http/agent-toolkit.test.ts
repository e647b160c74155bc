// PostHog's agent toolkit (@posthog/agent-toolkit, the tool set behind PostHog's MCP server) against Wren: each tool
// is called as an agent calls it (its input schema parses the arguments, its handler talks to Wren and validates
// Wren's answers with its own zod schemas), and answers what a user asked for. The tools Wren does not serve (error
// tracking, the AI tools that need PostHog's model) fail with Wren's clear refusal, never a crash.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PostHogAgentToolkit } from '@posthog/agent-toolkit/tools'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'

type Tool = Awaited<ReturnType<PostHogAgentToolkit['getTools']>>[number]

describe("PostHog's agent toolkit against Wren", () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let tools: Map<string, Tool>
  let context: ReturnType<PostHogAgentToolkit['getContext']>

  /** Calls a tool as an agent does, and reads its answer (the JSON in its text content). */
  const use = async (name: string, params: Record<string, unknown> = {}): Promise<any> => {
    const tool = tools.get(name)
    if (!tool) throw new Error(`the toolkit has no tool ${name}`)
    const out = (await tool.handler(context, tool.schema.parse(params))) as { content: Array<{ text: string }> }
    const text = out.content[0].text
    try {
      return JSON.parse(text)
    } catch {
      return text
    }
  }

  beforeAll(async () => {
    t = await startWren({ WREN_OWNER_EMAIL: 'agent@example.com', WREN_OWNER_PASSWORD: 'agent passphrase' })
    call = api(t)
    const toolkit = new PostHogAgentToolkit({ posthogApiToken: t.personalKey, posthogApiBaseUrl: t.url })
    context = toolkit.getContext()
    tools = new Map((await toolkit.getTools()).map((tool) => [tool.name, tool]))
    const hour = 3_600_000
    await captureBatch(
      t,
      ['ada', 'bob', 'cy', 'dee'].flatMap((id, n) => [
        { event: '$pageview', distinct_id: id, properties: { $current_url: 'https://shop.example/', plan: n % 2 ? 'pro' : 'free' } },
        { event: 'purchase', distinct_id: id, properties: { amount: 10 * (n + 1) }, timestamp: new Date(Date.now() - hour).toISOString() },
      ]),
    )
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('finds the organization and the project the key works in, and the events and properties in it', async () => {
    const [org] = await use('organizations-get')
    expect(org.name).toBe((await call('GET', '/api/organizations/@current/')).body.name)
    expect((await use('organization-details-get')).id).toBe(org.id)
    expect(await use('projects-get')).toEqual([{ id: t.projectId, name: 'Default project', organization: org.id }])
    expect(await use('switch-project', { projectId: t.projectId })).toBe(`Switched to project ${t.projectId}`)
    const events = (await use('event-definitions-list')).map((e: { name: string }) => e.name)
    expect(events).toEqual(expect.arrayContaining(['$pageview', 'purchase']))
    const properties = (await use('properties-list', { type: 'event', eventName: 'purchase' })).map((p: { name: string }) => p.name)
    expect(properties).toContain('amount')
  })

  it('makes, reads, changes and deletes a feature flag', async () => {
    const made = await use('create-feature-flag', {
      name: 'New checkout',
      key: 'new-checkout',
      description: 'The one-page checkout',
      filters: { groups: [{ properties: [], rollout_percentage: 25 }] },
      active: true,
    })
    expect(made).toMatchObject({ key: 'new-checkout', active: true })
    expect((await use('feature-flag-get-all')).map((f: { key: string }) => f.key)).toContain('new-checkout')
    expect((await use('feature-flag-get-definition', { flagKey: 'new-checkout' })).filters.groups[0].rollout_percentage).toBe(25)
    expect((await use('update-feature-flag', { flagKey: 'new-checkout', data: { active: false } })).active).toBe(false)
    expect(await use('delete-feature-flag', { flagKey: 'new-checkout' })).toMatchObject({ success: true })
    expect(
      (await call('GET', `/api/projects/${t.projectId}/feature_flags/`)).body.results.map((f: { key: string }) => f.key),
    ).not.toContain('new-checkout')
  })

  it('runs queries, saves one as an insight, puts it on a new dashboard, and deletes both', async () => {
    expect(
      await use('query-run', {
        query: {
          kind: 'DataVisualizationNode',
          source: { kind: 'HogQLQuery', query: "select count() from events where event = 'purchase'" },
        },
      }),
    ).toEqual([[4]])
    const trendQuery = {
      kind: 'InsightVizNode',
      source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'purchase', custom_name: 'Purchases', math: 'total' }] },
    }
    const trend = await use('query-run', { query: trendQuery })
    expect(trend[0].count).toBe(4)
    const insight = await use('insight-create-from-query', { data: { name: 'Purchases', query: trendQuery, favorited: false } })
    expect(insight).toMatchObject({ name: 'Purchases', short_id: expect.any(String) })
    expect((await use('insight-get', { insightId: insight.short_id })).id).toBe(insight.id)
    expect((await use('insight-query', { insightId: String(insight.id) })).results[0].count).toBe(4)
    expect((await use('insight-update', { insightId: String(insight.id), data: { name: 'All purchases', query: trendQuery } })).name).toBe(
      'All purchases',
    )
    expect((await use('insights-get-all', { data: {} })).map((i: { id: number }) => i.id)).toContain(insight.id)

    const board = await use('dashboard-create', { data: { name: 'Agent board', description: 'Made by an agent' } })
    await use('add-insight-to-dashboard', { data: { insightId: String(insight.id), dashboardId: board.id } })
    const read = await use('dashboard-get', { dashboardId: board.id })
    expect(read.tiles.map((tile: { insight: { name: string } }) => tile.insight.name)).toEqual(['All purchases'])
    expect((await use('dashboard-update', { dashboardId: board.id, data: { name: 'Agent board (2)' } })).name).toBe('Agent board (2)')
    expect((await use('dashboards-get-all', { data: {} })).map((d: { name: string }) => d.name)).toContain('Agent board (2)')
    expect(await use('dashboard-delete', { dashboardId: board.id })).toMatchObject({ success: true })
    expect(await use('insight-delete', { insightId: String(insight.id) })).toMatchObject({ success: true })
    expect((await call('GET', `/api/projects/${t.projectId}/insights/${insight.id}/`)).status).toBe(404)
  })

  it('creates an experiment with its flag, launches it, reads exposures and results per variant, ends and deletes it', async () => {
    const made = await use('experiment-create', {
      name: 'Checkout button',
      feature_flag_key: 'checkout-button',
      description: 'Does a green button sell more?',
      primary_metrics: [{ name: 'Purchases', metric_type: 'mean', event_name: 'purchase' }],
      draft: true,
    })
    expect(made).toMatchObject({ name: 'Checkout button', feature_flag_key: 'checkout-button', start_date: null })
    expect(made.feature_flag.filters.multivariate.variants.map((v: { key: string }) => v.key)).toEqual(['control', 'test'])
    const launched = await use('experiment-update', { experimentId: made.id, data: { launch: true } })
    expect(launched.start_date).not.toBeNull()
    // Two people saw each variant; the test variant's bought more.
    const variants: Record<string, string> = { ada: 'control', bob: 'test', cy: 'control', dee: 'test' }
    await captureBatch(
      t,
      Object.entries(variants).flatMap(([id, variant]) => [
        {
          event: '$feature_flag_called',
          distinct_id: id,
          properties: { $feature_flag: 'checkout-button', $feature_flag_response: variant },
        },
        ...Array.from({ length: variant === 'test' ? 3 : 1 }, () => ({ event: 'purchase', distinct_id: id, properties: { amount: 5 } })),
      ]),
    )
    await drained(t.wren)
    const results = await use('experiment-results-get', { experimentId: made.id, refresh: true })
    expect(results.exposures.total_exposures).toEqual({ control: 2, test: 2 })
    // Every metric answered (a metric whose query failed would be left out of the results).
    expect(results.metrics.primary.count).toBe(1)
    expect(results.metrics.primary.results).toHaveLength(1)
    const primary = results.metrics.primary.results[0].data
    expect(primary.baseline).toMatchObject({ key: 'control', number_of_samples: 2, sum: 2 })
    expect(primary.variant_results).toEqual([expect.objectContaining({ key: 'test', number_of_samples: 2, sum: 6 })])
    expect((await use('experiment-get-all')).map((e: { id: number }) => e.id)).toEqual([made.id])
    const ended = await use('experiment-update', { experimentId: made.id, data: { conclude: 'won', conclusion_comment: 'Green sells' } })
    expect(ended).toMatchObject({ conclusion: 'won', conclusion_comment: 'Green sells', end_date: expect.any(String) })
    expect((await use('experiment-get', { experimentId: made.id })).conclusion).toBe('won')
    expect(await use('experiment-delete', { experimentId: made.id })).toMatchObject({ success: true })
    expect(await use('experiment-get-all')).toEqual([])
  })

  it('creates a survey, launches it, reads its stats once answered, and archives it', async () => {
    const made = await use('survey-create', {
      name: 'Checkout feedback',
      description: 'Why people stop at checkout',
      type: 'popover',
      questions: [
        {
          type: 'rating',
          question: 'How likely are you to recommend us?',
          display: 'number',
          scale: 10,
          branching: { type: 'response_based', responseValues: { detractors: 1, passives: 'end', promoters: 'end' } },
        },
        { type: 'single_choice', question: 'What nearly stopped you?', choices: ['Price', 'Shipping', 'Other'], hasOpenChoice: true },
      ],
      targeting_flag_filters: {
        groups: [{ properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }], rollout_percentage: 100 }],
      },
    })
    expect(made).toMatchObject({
      name: 'Checkout feedback',
      status: 'draft',
      targeting_flag: { key: expect.stringMatching(/^survey-targeting-/) },
    })
    expect(made.questions.map((q: { type: string }) => q.type)).toEqual(['rating', 'single_choice'])
    expect((await use('surveys-get-all', { search: 'checkout' })).results.map((s: { id: string }) => s.id)).toEqual([made.id])
    const launched = await use('survey-update', {
      surveyId: made.id,
      start_date: new Date().toISOString(),
      conditions: { url: '/checkout', urlMatchType: 'icontains' },
    })
    expect(launched).toMatchObject({ status: 'active', conditions: { url: '/checkout' } })
    expect((await use('survey-get', { surveyId: made.id })).status).toBe('active')
    // Two people saw it, one answered.
    await captureBatch(t, [
      ...['ada', 'bob'].map((id) => ({ event: 'survey shown', distinct_id: id, properties: { $survey_id: made.id } })),
      { event: 'survey sent', distinct_id: 'ada', properties: { $survey_id: made.id, $survey_response: 9 } },
    ])
    await drained(t.wren)
    const stats = await use('survey-stats', { survey_id: made.id })
    expect(stats.stats['survey shown']).toMatchObject({ total_count: 2, unique_persons: 2 })
    expect(stats.rates.response_rate).toBe(50)
    expect((await use('surveys-global-stats', {})).stats['survey sent'].total_count).toBe(1)
    expect(await use('survey-delete', { surveyId: made.id })).toMatchObject({ success: true })
    expect((await use('survey-get', { surveyId: made.id })).status).toBe('archived')
  })

  it('refuses what Wren does not serve with its clear error: error tracking and PostHog’s AI', async () => {
    await expect(use('list-errors')).rejects.toThrow(/unsupported|not supported|No route/i)
    await expect(use('query-generate-hogql-from-question', { question: 'How many purchases?' })).rejects.toThrow(/404|No route/)
  })
})
