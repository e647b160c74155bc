// Surveys end to end in headless Chromium. A survey created through the API, targeted at people on the pro plan and at
// one page, is shown by posthog-js on that page of another site (posthog-js loaded through PostHog's HTML snippet from
// Wren, its surveys bundle from Wren's /static/), answered by clicking a rating and a choice, and its response and
// stats are read back through the API. Then the app's Surveys page: a survey made there, a second question added,
// launched and stopped, its responses and stats shown (screenshots under test-artifacts/web/, at 1280 and 390 px).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, BrowserContext } from 'playwright-core'
import { api, captureBatch, drained, startWren, waitFor, type TestWren } from '../support/wren'
import { skipReason } from '../support/skip'
import { serveSite, snippetScript, type Site } from '../support/posthog-snippet'
import { chromiumMissing, expectDrawn, launchChromium, signedInContext } from '../support/browser'

const unavailable = skipReason('surveys-browser', chromiumMissing())
const WIDTHS = { desktop: { width: 1280, height: 860 }, phone: { width: 390, height: 844 } }

/** A page of the site: PostHog's snippet pointed at Wren, for a visitor of `plan` with a person profile (posthog-js sets what they answered on it). */
const sitePage = (wrenUrl: string, token: string, visitor: string, plan: string) => `<!doctype html>
<html><head><meta charset="utf-8"><title>pricing</title>
${snippetScript(
  token,
  wrenUrl,
  `    bootstrap: { distinctID: ${JSON.stringify(visitor)} },
    autocapture: false,
    person_profiles: 'always',`,
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
      '/pricing-again': sitePage(t.url, t.projectKey, 'pro-dismisser', 'pro'),
    })
  })
  afterAll(async () => {
    await browser?.close()
    await site?.close()
    await t?.close()
  })

  it('shows a survey made through the API to the people and page it targets, and counts the answer and the dismissal', async () => {
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
    const dismisserBrowser = await browser.newContext({ viewport: WIDTHS.desktop })
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
      // Another pro visitor closes it unanswered.
      const other = await dismisserBrowser.newPage()
      await other.goto(`${site.origin}/pricing-again`)
      const closing = other.locator(`.PostHogSurvey-${made.body.id}`)
      await closing.locator('.survey-question').first().waitFor({ timeout: 20_000 })
      await closing.locator('.form-cancel').click()
      const stored = async (event: string) =>
        (await call('GET', `/api/projects/${t.projectId}/events/?event=${encodeURIComponent(event)}`)).body.results.length > 0
      await waitFor(async () => (await stored('survey sent')) && stored('survey dismissed'), {
        what: 'posthog-js’s survey sent and survey dismissed to be stored',
      })
    } finally {
      await freeBrowser.close()
      await dismisserBrowser.close()
      await context.close()
    }
    await drained(t.wren)

    const stats = await call('GET', `${base()}${made.body.id}/stats/`)
    expect(stats.body.stats['survey shown']).toMatchObject({ total_count: 2, unique_persons: 2 })
    expect(stats.body.stats['survey sent']).toMatchObject({ total_count: 1, unique_persons: 1 })
    expect(stats.body.stats['survey dismissed']).toMatchObject({ total_count: 1, unique_persons: 1 })
    expect(stats.body.rates).toEqual({
      response_rate: 50,
      dismissal_rate: 50,
      unique_users_response_rate: 50,
      unique_users_dismissal_rate: 50,
    })
    const responses = await call('POST', `/api/projects/${t.projectId}/query/`, {
      query: {
        kind: 'HogQLQuery',
        query: `SELECT distinct_id, properties['$survey_response_${rating.id}'], properties['$survey_response_${choice.id}'] FROM events WHERE event = 'survey sent' AND properties.$survey_id = '${made.body.id}'`,
      },
    })
    expect(responses.body.results).toEqual([['pro-visitor', '4', 'Pro']])
    // posthog-js marked the person as having answered: on another device, the survey's internal flag keeps it away
    // (once decide has the person's new properties).
    const flagsOf = async (): Promise<Record<string, { enabled: boolean }>> => {
      const res = await fetch(`${t.url}/flags/?v=2`, {
        method: 'POST',
        body: JSON.stringify({ token: t.projectKey, distinct_id: 'pro-visitor', person_properties: { plan: 'pro' } }),
      })
      return ((await res.json()) as { flags: Record<string, { enabled: boolean }> }).flags
    }
    const flags = await waitFor(
      async () => {
        const answer = await flagsOf()
        return answer[made.body.internal_targeting_flag.key].enabled === false && answer
      },
      { what: 'the internal targeting flag to turn off for the person who answered' },
    )
    expect(flags[made.body.targeting_flag.key].enabled).toBe(true)
  })

  /** Sends `n` people's answers of `survey` as posthog-js does: shown, then sent with each question's response. */
  const answered = async (survey: { id: string; questions: Array<{ id: string }> }, answers: unknown[][]) => {
    const events = answers.flatMap((responses, n) => [
      { event: 'survey shown', distinct_id: `app-${n}`, properties: { $survey_id: survey.id } },
      {
        event: 'survey sent',
        distinct_id: `app-${n}`,
        properties: {
          $survey_id: survey.id,
          ...Object.fromEntries(survey.questions.map((q, i) => [`$survey_response_${q.id}`, responses[i]])),
        },
      },
    ])
    await captureBatch(t, events)
    await drained(t.wren)
  }

  it('makes a survey in the app, adds a second question, launches and stops it, and shows its stats and responses', async () => {
    const contexts: BrowserContext[] = []
    try {
      // Twice: at 1280 px a single choice kept on /checkout; at 390 px a multiple choice, the page URL cleared.
      const runs = [
        {
          size: WIDTHS.desktop,
          name: 'Checkout survey',
          choice: 'single_choice',
          url: '/checkout',
          answers: [
            ['9', 'Price'],
            ['6', 'Shipping'],
          ],
        },
        {
          size: WIDTHS.phone,
          name: 'Onboarding survey',
          choice: 'multiple_choice',
          url: '',
          answers: [
            ['9', '["Price","Shipping"]'],
            ['6', '["Other"]'],
          ],
        },
      ] as const
      const shown = (answer: string) => (answer.startsWith('[') ? (JSON.parse(answer) as string[]).join(', ') : answer)
      for (const { size, name, choice, url, answers } of runs) {
        const context = await signedInContext(browser, t.url, t.personalKey, { viewport: size })
        contexts.push(context)
        const page = await context.newPage()
        await page.goto(`${t.url}/project/${t.projectId}/surveys`)
        if (size === WIDTHS.phone) await page.click('nav.menu .menu-toggle')
        await page.click('nav.menu a:has-text("Surveys")')
        await page.click('a:has-text("New survey")')
        await page.fill('input[name=name]', name)
        await page.fill('input[name=url]', '/checkout')
        await page.selectOption('select[aria-label="Question 1 type"]', 'rating')
        await page.fill('input[aria-label="Question 1 text"]', 'How easy was it?')
        await page.selectOption('select[aria-label="Question 1 scale"]', '10')
        await page.click('button:has-text("Create survey")')
        await page.waitForSelector('[aria-label=Status]:has-text("Draft")')
        // Conditions the editor does not show (set through the API) are kept by its saves.
        const [made] = (await call('GET', `${base()}?search=${encodeURIComponent(name)}`)).body.results
        const events = { values: [{ name: 'checkout_started' }] }
        await call('PATCH', `${base()}${made.id}/`, { conditions: { ...made.conditions, events } })
        await page.reload()
        await page.fill('input[name=url]', url)
        // A second question, a choice with an open last choice.
        await page.click('button:has-text("+ Add a question")')
        await page.selectOption('select[aria-label="Question 2 type"]', choice)
        await page.fill('input[aria-label="Question 2 text"]', 'What nearly stopped you?')
        await page.fill('textarea[aria-label="Question 2 choices"]', 'Price\nShipping\nOther')
        await page.check('section[aria-label="Question 2"] input[type=checkbox]')
        await page.click('button:has-text("Save")')
        const saved = await waitFor(
          async () => {
            const [found] = (await call('GET', `${base()}?search=${encodeURIComponent(name)}`)).body.results
            return found?.questions.length === 2 && found
          },
          { what: 'the second question saved' },
        )
        // The page reloads the survey: the second question is there with the id it was given.
        await page.waitForFunction(
          () => (globalThis as any).document.querySelector('input[aria-label="Question 2 text"]')?.value === 'What nearly stopped you?',
        )
        expect(saved).toMatchObject({
          type: 'popover',
          conditions: url ? { url, urlMatchType: 'icontains', events } : { events },
          start_date: null,
          questions: [
            { type: 'rating', question: 'How easy was it?', scale: 10, display: 'number', id: expect.any(String) },
            {
              type: choice,
              question: 'What nearly stopped you?',
              choices: ['Price', 'Shipping', 'Other'],
              hasOpenChoice: true,
              id: expect.any(String),
            },
          ],
        })

        await page.click('button:has-text("Launch")')
        await page.waitForSelector('[aria-label=Status]:has-text("Running")')
        expect((await call('GET', `${base()}${saved.id}/`)).body.start_date).not.toBeNull()
        const running: any = await (await fetch(`${t.url}/api/surveys/?token=${t.projectKey}`)).json()
        expect(running.surveys.map((s: { id: string }) => s.id)).toContain(saved.id)

        await answered(
          saved,
          answers.map(([rating, picked]) => [rating, picked.startsWith('[') ? JSON.parse(picked) : picked]),
        )
        await page.reload()
        const stats = page.locator('[aria-label=Stats]')
        await stats.waitFor()
        expect(await stats.locator('.figure strong').allTextContents()).toEqual(['2', '0', '2', '100%'])
        const rows = page.locator('table[aria-label=Responses] tbody tr')
        await rows.nth(1).waitFor()
        const cells = await rows.evaluateAll((trs) =>
          trs.map((tr) => [...(tr as unknown as { cells: Array<{ textContent: string }> }).cells].map((c) => c.textContent)),
        )
        expect(cells.map((r) => [r[0], r[2], r[3]]).sort()).toEqual(
          answers.map(([rating, picked], n) => [`app-${n}`, rating, shown(picked)]),
        )
        await expectDrawn(page, `surveys-app-${size.width}`, size.width)

        await page.click('button:has-text("Stop")')
        await page.waitForSelector('[aria-label=Status]:has-text("Stopped")')
        expect((await call('GET', `${base()}${saved.id}/`)).body.end_date).not.toBeNull()
        await page.goto(`${t.url}/project/${t.projectId}/surveys`)
        const row = page.locator(`tr:has(a:has-text("${name}"))`)
        expect(await row.locator('.survey-status').textContent()).toBe('Stopped')
        // The responses column fills in once the counts have loaded.
        await row.locator('td.num:text-is("2")').waitFor()
        await expectDrawn(page, `surveys-list-${size.width}`, size.width)
      }
    } finally {
      for (const context of contexts) await context.close()
    }
  })
})
