// An experiment read from real exposures: posthog-node's getFeatureFlag and posthog-js's (in Chromium, loaded from
// Wren through PostHog's snippet) send `$feature_flag_called` with the variant each user got; their purchases are
// the metric. The Query API's ExperimentExposureQuery and ExperimentQuery answer exposures per variant per day and
// each metric per variant with the Bayesian statistics; a person seen in both variants is `$multiple`, left out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { PostHog } from 'posthog-node'
import { api, drained, startWren, waitFor, type TestWren } from '../support/wren'
import { chromiumMissing, expectDrawn, launchChromium, signInWithPassword } from '../support/browser'
import { skipReason } from '../support/skip'
import { serveSite, snippetScript, type Site } from '../support/posthog-snippet'

const unavailable = skipReason('experiments', chromiumMissing())

const FLAG = 'signup-cta'
const meanMetric = { kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'EventsNode', event: 'purchase' } }
const revenueMetric = {
  kind: 'ExperimentMetric',
  metric_type: 'mean',
  source: { kind: 'EventsNode', event: 'purchase', math: 'sum', math_property: 'amount' },
}
const funnelMetric = { kind: 'ExperimentMetric', metric_type: 'funnel', series: [{ kind: 'EventsNode', event: 'purchase' }] }
const ratioMetric = {
  kind: 'ExperimentMetric',
  metric_type: 'ratio',
  numerator: { kind: 'EventsNode', event: 'purchase', math: 'sum', math_property: 'amount' },
  denominator: { kind: 'EventsNode', event: 'purchase' },
}

/** What one user did: the purchases (amounts) a user of each variant makes, varied by their number. */
const purchasesOf = (variant: string, n: number): number[] =>
  variant === 'test' ? (n % 5 === 0 ? [] : n % 3 === 0 ? [30, 30] : [30]) : n % 2 === 0 ? [20] : []

describe.skipIf(unavailable !== null)(
  `experiments from posthog-node and posthog-js${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    let t: TestWren
    let call: ReturnType<typeof api>
    let browser: Browser
    let site: Site
    let experimentId: number
    /** Each user's variant, as the SDKs reported it. */
    const variantOf = new Map<string, string>()

    beforeAll(async () => {
      t = await startWren({ WREN_OWNER_EMAIL: 'lab@example.com', WREN_OWNER_PASSWORD: 'lab passphrase' })
      call = api(t)
      const made = await call('POST', `/api/projects/${t.projectId}/experiments/`, {
        name: 'Signup call to action',
        feature_flag_key: FLAG,
        metrics: [meanMetric, funnelMetric],
        metrics_secondary: [revenueMetric, ratioMetric],
        // The test users are local ones: Wren's default test-account filters would leave them out.
        exposure_criteria: { filterTestAccounts: false },
      })
      expect(made.status, made.text).toBe(201)
      experimentId = made.body.id
      // Launched two days ago: the exposures run over three days, every exposure on the last.
      const launched = await call('PATCH', `/api/projects/${t.projectId}/experiments/${experimentId}/`, {
        start_date: new Date(Date.now() - 2 * 86_400_000).toISOString(),
      })
      expect(launched.body.feature_flag.active).toBe(true)
      browser = await launchChromium()
    })
    afterAll(async () => {
      await browser?.close()
      await site?.close()
      await t?.close()
    })

    const query = async (node: Record<string, unknown>) => {
      const r = await call('POST', `/api/projects/${t.projectId}/query/`, { query: node, refresh: 'force_blocking' })
      expect(r.status, r.text).toBe(200)
      return r.body
    }
    const exposures_ = () => query({ kind: 'ExperimentExposureQuery', experiment_id: experimentId })
    const results = (metric: Record<string, unknown>) => query({ kind: 'ExperimentQuery', experiment_id: experimentId, metric })

    it('counts exposures per variant from posthog-node and posthog-js, a person seen in both as $multiple', async () => {
      const node = new PostHog(t.projectKey, { host: t.url, flushAt: 1000, flushInterval: 0 })
      for (let n = 0; n < 140; n++) {
        const distinctId = `node-user-${n}`
        const variant = await node.getFeatureFlag(FLAG, distinctId) // sends $feature_flag_called
        expect(['control', 'test']).toContain(variant)
        variantOf.set(distinctId, variant as string)
        for (const amount of purchasesOf(variant as string, n)) node.capture({ distinctId, event: 'purchase', properties: { amount } })
      }
      // One person reported in both variants (a flag changed under them): PostHog's exclude handling.
      for (const response of ['control', 'test'])
        node.capture({
          distinctId: 'both-ways',
          event: '$feature_flag_called',
          properties: { $feature_flag: FLAG, $feature_flag_response: response },
        })
      // Another flag's calls are not this experiment's.
      node.capture({
        distinctId: 'other',
        event: '$feature_flag_called',
        properties: { $feature_flag: 'other-flag', $feature_flag_response: 'test' },
      })
      await node.shutdown()

      // posthog-js, loaded from Wren by PostHog's snippet: two visitors, each reads the flag once and buys.
      const page = (id: string) => `<!doctype html><html><head><meta charset="utf-8"></head><body>
${snippetScript(t.projectKey, t.url, `bootstrap: { distinctID: ${JSON.stringify(id)} }, persistence: 'memory', autocapture: false, capture_pageview: false, disable_session_recording: true, disable_surveys: true,`)}
<script>
  posthog.onFeatureFlags(function () {
    if (window.__variant) return
    window.__variant = posthog.getFeatureFlag(${JSON.stringify(FLAG)})
    posthog.capture('purchase', { amount: 25 })
  })
</script></body></html>`
      site = await serveSite({ '/a': page('js-user-a'), '/b': page('js-user-b') })
      const context = await browser.newContext()
      for (const id of ['a', 'b']) {
        const tab = await context.newPage()
        await tab.goto(`${site.origin}/${id}`)
        await tab.waitForFunction(() => Boolean((globalThis as unknown as { __variant?: string }).__variant))
        variantOf.set(`js-user-${id}`, await tab.evaluate(() => (globalThis as unknown as { __variant: string }).__variant))
        // posthog-js sends each event in its own request: the tab stays open until Wren has both.
        await waitFor(
          async () => {
            await drained(t.wren)
            const r = await call('POST', `/api/projects/${t.projectId}/query/`, {
              query: {
                kind: 'HogQLQuery',
                query: `SELECT count() FROM events WHERE distinct_id = 'js-user-${id}' AND event IN ('purchase', '$feature_flag_called')`,
              },
            })
            return r.body.results?.[0]?.[0] === 2
          },
          { what: `js-user-${id}'s exposure and purchase` },
        )
      }
      await context.close()
      await drained(t.wren)

      const expected: Record<string, number> = { control: 0, test: 0 }
      for (const v of variantOf.values()) expected[v]++
      const answer = await waitFor(
        async () => {
          const a = await exposures_()
          return a.total_exposures.control + a.total_exposures.test === variantOf.size ? a : false
        },
        { what: 'every exposure counted' },
      )
      expect(answer.kind).toBe('ExperimentExposureQuery')
      expect(answer.total_exposures).toEqual({ ...expected, $multiple: 1 })
      const today = new Date().toISOString().slice(0, 10)
      expect(answer.timeseries.map((s: { variant: string }) => s.variant)).toEqual(['control', 'test', '$multiple'])
      for (const series of answer.timeseries) {
        expect(series.days).toHaveLength(3)
        expect(series.days.at(-1)).toBe(today)
        expect(series.exposure_counts).toEqual([0, 0, answer.total_exposures[series.variant]])
      }
      // 142 exposures split 50/50 by the flag: a chi-squared p-value, no mismatch expected at this size.
      expect(answer.sample_ratio_mismatch.p_value).toBeGreaterThan(0.001)
    })

    it('answers each metric per variant with chance to win and credible intervals', async () => {
      // What the users did, per variant: the number exposed, purchases, revenue, converted users.
      const sent = {
        control: { n: 0, count: 0, squares: 0, revenue: 0, converted: 0 },
        test: { n: 0, count: 0, squares: 0, revenue: 0, converted: 0 },
      }
      for (const [id, variant] of variantOf) {
        const n = Number(id.split('-').at(-1))
        const amounts = id.startsWith('js-') ? [25] : purchasesOf(variant, n)
        const s = sent[variant as 'control' | 'test']
        s.n++
        s.count += amounts.length
        s.squares += amounts.length ** 2
        s.revenue += amounts.reduce((a, b) => a + b, 0)
        s.converted += amounts.length > 0 ? 1 : 0
      }
      const mean = await results(meanMetric)
      expect(mean.baseline).toMatchObject({
        key: 'control',
        number_of_samples: sent.control.n,
        sum: sent.control.count,
        sum_squares: sent.control.squares,
      })
      const [test] = mean.variant_results
      expect(test).toMatchObject({ key: 'test', number_of_samples: sent.test.n, sum: sent.test.count, validation_failures: [] })
      // Test buys about twice as often: a decisive win.
      expect(test.chance_to_win).toBeGreaterThan(0.95)
      expect(test.significant).toBe(true)
      expect(test.credible_interval[0]).toBeGreaterThan(0)
      expect(mean).toMatchObject({ significant: true, significance_code: 'significant', stats_version: 2 })
      expect(mean.probability.test).toBeGreaterThan(0.95)
      expect(mean.credible_intervals.control[0]).toBeLessThan(sent.control.count / sent.control.n)

      const funnel = await results(funnelMetric)
      expect(funnel.baseline).toMatchObject({ number_of_samples: sent.control.n, sum: sent.control.converted })
      expect(funnel.variant_results[0]).toMatchObject({ sum: sent.test.converted })
      expect(funnel.variant_results[0].chance_to_win).toBeGreaterThan(0.5)
      expect(funnel.variants).toEqual([
        { key: 'control', success_count: sent.control.converted, failure_count: sent.control.n - sent.control.converted },
        { key: 'test', success_count: sent.test.converted, failure_count: sent.test.n - sent.test.converted },
      ])

      const revenue = await results(revenueMetric)
      expect([revenue.baseline.sum, revenue.variant_results[0].sum]).toEqual([sent.control.revenue, sent.test.revenue])
      const ratio = await results(ratioMetric)
      expect(ratio.baseline).toMatchObject({ sum: sent.control.revenue, denominator_sum: sent.control.count })
      expect(ratio.variant_results[0]).toMatchObject({ sum: sent.test.revenue, denominator_sum: sent.test.count })

      // A metric Wren cannot compute, and an experiment that does not exist, are 400s naming the field.
      const bad = await call('POST', `/api/projects/${t.projectId}/query/`, {
        query: { kind: 'ExperimentQuery', experiment_id: experimentId, metric: { ...meanMetric, metric_type: 'retention' } },
      })
      expect([bad.status, bad.body.attr]).toEqual([400, 'metric.metric_type'])
      const missing = await call('POST', `/api/projects/${t.projectId}/query/`, {
        query: { kind: 'ExperimentQuery', experiment_id: 999999, metric: meanMetric },
      })
      expect([missing.status, missing.body.attr]).toEqual([400, 'experiment_id'])
    })
    it('shows exposures and each metric per variant in the app, and creates, launches and stops a second experiment', async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
      const page = await context.newPage()
      await signInWithPassword(page, t.url, 'lab@example.com', 'lab passphrase')
      await page.click('nav.menu a:has-text("Experiments")')
      await page.click('a:has-text("Signup call to action")')
      // Exposures per variant, then each metric's table: the test variant's chance to win and its interval.
      const exposures = page.locator('section[aria-label=Exposures]')
      await expect.poll(() => exposures.locator('table.list tbody tr').count(), { timeout: 20_000 }).toBe(3)
      const answer = await exposures_()
      const total = answer.total_exposures
      expect(await exposures.locator('table.list tbody tr', { hasText: 'test' }).locator('td.num').innerText()).toBe(String(total.test))
      // The chart of users exposed so far, day by day: a line per variant with the query's numbers.
      const drawn = JSON.parse((await exposures.locator('[data-testid=trend-chart]').getAttribute('data-values'))!)
      expect(drawn.labels).toEqual(answer.timeseries[0].days)
      expect(drawn.series.map((s: { values: number[] }) => s.values)).toEqual(
        answer.timeseries.map((s: { exposure_counts: number[] }) => s.exposure_counts),
      )
      const purchases = page.locator('section[aria-label="Metric purchase count per user"]')
      await purchases.locator('tbody tr').nth(1).waitFor()
      const testRow = await purchases.locator('tbody tr').nth(1).innerText()
      expect(testRow).toMatch(/^test\s+\d+\s+\d+\s+[\d.]+\s+\d+\.\d%\s+-?\d+\.\d% to \d+\.\d%$/)
      const mean = await results(meanMetric)
      expect(testRow).toContain(`${(mean.variant_results[0].chance_to_win * 100).toFixed(1)}%`)
      await page.locator('section[aria-label="Metric purchase conversion"] tbody tr').nth(1).waitFor()
      await page.locator('section[aria-label="Metric amount of purchase per user"] tbody tr').nth(1).waitFor()
      await page.locator('section[aria-label="Metric amount of purchase per purchase"] tbody tr').nth(1).waitFor()
      await expectDrawn(page, 'experiment-results', 1280)
      await page.setViewportSize({ width: 390, height: 844 })
      await expectDrawn(page, 'experiment-results-narrow', 390)
      await page.setViewportSize({ width: 1280, height: 900 })

      // A second experiment, from a new key with a first metric; launched, given a second metric, stopped.
      await page.click('nav.menu a:has-text("Experiments")')
      await page.click('a:has-text("New experiment")')
      await page.fill('input[name=name]', 'Onboarding tour')
      await page.fill('input[name=feature_flag_key]', 'onboarding-tour')
      await page.fill('input[name=metric_event]', 'purchase')
      await page.click('button:has-text("Create experiment")')
      await page.waitForSelector('h1:has-text("Onboarding tour")')
      await page.waitForSelector('.status:has-text("Draft")')
      await page.click('button:has-text("Launch")')
      await page.waitForSelector('.status:has-text("Running")')
      const flags = await call('GET', `/api/projects/${t.projectId}/feature_flags/?search=onboarding-tour`)
      expect(flags.body.results[0]).toMatchObject({ key: 'onboarding-tour', active: true })
      await page.fill('form input[name=metric_event]', 'purchase')
      await page.selectOption('form select[name=metric_type]', 'funnel')
      await page.click('button:has-text("Add metric")')
      await page.waitForSelector('section[aria-label="Metric purchase conversion"] tbody tr')
      expect(await page.locator('section.metric-result').count()).toBe(2)
      await page.click('button:has-text("Stop")')
      await page.waitForSelector('.status:has-text("Stopped")')
      // Stopped: its exposures and both metrics read again over the launch-to-stop window.
      await page.waitForSelector('section[aria-label=Exposures] tbody tr')
      await page.waitForSelector('section[aria-label="Metric purchase count per user"] tbody tr')
      await page.waitForSelector('section[aria-label="Metric purchase conversion"] tbody tr')
      const list = await call('GET', `/api/projects/${t.projectId}/experiments/?search=onboarding`)
      expect(list.body.results[0]).toMatchObject({ start_date: expect.any(String), end_date: expect.any(String) })
      expect(list.body.results[0].metrics.map((m: { metric_type: string }) => m.metric_type)).toEqual(['mean', 'funnel'])
      await expectDrawn(page, 'experiment-new-stopped', 1280)
      await context.close()
    })
  },
)
