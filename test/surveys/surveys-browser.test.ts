// Surveys end to end in headless Chromium. A survey created through the API, targeted at people on the pro plan and at
// one page, is shown by posthog-js on that page of another site (posthog-js loaded through PostHog's HTML snippet from
// Wren, its surveys bundle from Wren's /static/), answered by clicking a rating and a choice, and its response and
// stats are read back through the API. Then the app's Surveys page: a survey made there, a second question added,
// launched and stopped, its responses and stats shown (screenshots under test-artifacts/web/, at 1280 and 390 px).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { api, drained, startWren, waitFor, type TestWren } from '../support/wren'
import { skipReason } from '../support/skip'
import { serveSite, snippetScript, type Site } from '../support/posthog-snippet'
import { chromiumMissing, expectDrawn, launchChromium, signedInContext } from '../support/browser'

const unavailable = skipReason('surveys-browser', chromiumMissing())
const WIDTHS = { desktop: { width: 1280, height: 860 }, phone: { width: 390, height: 844 } }

/** A page of the site: PostHog's snippet pointed at Wren, for a visitor of `plan`. */
const sitePage = (wrenUrl: string, token: string, visitor: string, plan: string) => `<!doctype html>
<html><head><meta charset="utf-8"><title>pricing</title>
${snippetScript(
  token,
  wrenUrl,
  `    bootstrap: { distinctID: ${JSON.stringify(visitor)} },
    autocapture: false,`,
)}
<script>posthog.setPersonPropertiesForFlags({ plan: ${JSON.stringify(plan)} })</script>
</head><body><main><h1>Pricing</h1></main></body></html>`

interface PosthogGlobal {
  posthog: {
    getFeatureFlag(key: string): string | boolean | undefined
    getActiveMatchingSurveys(callback: (surveys: Array<{ id: string }>) => void, forceReload?: boolean): void
  }
}

describe.skipIf(unavailable !== null)(`surveys in headless Chromium${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let browser: Browser
  let site: Site
  const base = () => `/api/projects/${t.projectId}/surveys/`

  beforeAll(async () => {
    t = await startWren()
    call = api(t)
    browser = await launchChromium()
    site = await serveSite({
      '/pricing': sitePage(t.url, t.projectKey, 'pro-visitor', 'pro'),
      '/pricing-free': sitePage(t.url, t.projectKey, 'free-visitor', 'free'),
    })
  })
  afterAll(async () => {
    await browser?.close()
    await site?.close()
    await t?.close()
  })

  it('shows a survey made through the API to the people and page it targets, and counts the answer', async () => {
    const made = await call('POST', base(), {
      name: 'Pricing feedback',
      type: 'popover',
      start_date: new Date().toISOString(),
      questions: [
        {
          type: 'rating',
          question: 'How clear is our pricing?',
          scale: 5,
          display: 'number',
          lowerBoundLabel: 'Unclear',
          upperBoundLabel: 'Clear',
        },
        { type: 'single_choice', question: 'Which plan fits you?', choices: ['Free', 'Pro', 'Enterprise'] },
      ],
      conditions: { url: '/pricing', urlMatchType: 'icontains' },
      targeting_flag_filters: {
        groups: [{ properties: [{ key: 'plan', value: ['pro'], operator: 'exact', type: 'person' }], rollout_percentage: 100 }],
      },
    })
    expect(made.status, made.text).toBe(201)
    const [rating, choice] = made.body.questions as Array<{ id: string }>

    // Each visitor in a browser of their own (posthog-js keeps its distinct id in the site's storage).
    const freeBrowser = await browser.newContext({ viewport: WIDTHS.desktop })
    const context = await browser.newContext({ viewport: WIDTHS.desktop })
    try {
      // A free-plan visitor: posthog-js loads the survey, and its targeting flag keeps it from them.
      const free = await freeBrowser.newPage()
      await free.goto(`${site.origin}/pricing-free`)
      // Once its flags are in (the targeting flag off for them) and its surveys loaded, none matches.
      const matching = (key: string) =>
        free.evaluate(
          (flag) =>
            new Promise<string | false>((resolve) => {
              const { posthog } = globalThis as unknown as PosthogGlobal
              if (posthog.getFeatureFlag?.(flag) !== false) return resolve(false)
              posthog.getActiveMatchingSurveys((surveys) => resolve(surveys.map((s) => s.id).join(',') || 'none'), true)
              setTimeout(() => resolve(false), 1000)
            }),
          key,
        )
      expect(await waitFor(() => matching(made.body.targeting_flag.key), { what: 'the free visitor’s flags and surveys' })).toBe('none')
      expect(await free.locator(`.PostHogSurvey-${made.body.id}`).count()).toBe(0)

      const page = await context.newPage()
      await page.goto(`${site.origin}/pricing`)
      const survey = page.locator(`.PostHogSurvey-${made.body.id}`)
      // posthog-js draws it in a shadow root: Playwright's selectors reach in.
      await survey.locator('.survey-question:has-text("How clear is our pricing?")').waitFor({ timeout: 20_000 })
      await expectDrawn(page, 'surveys-posthog-js-question', WIDTHS.desktop.width, { minColours: 5 })
      await survey.locator('.ratings-number:has-text("4")').click()
      await survey.locator('.form-submit').click()
      await survey.locator('label:has-text("Pro")').click()
      await survey.locator('.form-submit').click()
      await waitFor(
        async () =>
          (await call('GET', `/api/projects/${t.projectId}/events/?event=${encodeURIComponent('survey sent')}`)).body.results.length > 0,
        { what: 'posthog-js’s survey sent to be stored' },
      )
    } finally {
      await freeBrowser.close()
      await context.close()
    }
    await drained(t.wren)

    const stats = await call('GET', `${base()}${made.body.id}/stats/`)
    expect(stats.body.stats['survey shown']).toMatchObject({ total_count: 1, unique_persons: 1 })
    expect(stats.body.stats['survey sent']).toMatchObject({ total_count: 1, unique_persons: 1 })
    expect(stats.body.rates).toMatchObject({ response_rate: 100, unique_users_response_rate: 100 })
    const responses = await call('POST', `/api/projects/${t.projectId}/query/`, {
      query: {
        kind: 'HogQLQuery',
        query: `SELECT distinct_id, properties['$survey_response_${rating.id}'], properties['$survey_response_${choice.id}'] FROM events WHERE event = 'survey sent' AND properties.$survey_id = '${made.body.id}'`,
      },
    })
    expect(responses.body.results).toEqual([['pro-visitor', '4', 'Pro']])
  })
})
