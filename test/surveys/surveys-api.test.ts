// Surveys through the API on real chDB, in PostHog's shapes: create with every question type (ids given as PostHog
// gives them), a targeting flag made from targeting_flag_filters, validation as PostHog's serializer refuses,
// launch and stop (what posthog-js is handed in GET /api/surveys/ and the remote config), soft delete, the stats of
// posthog-js's survey events, responses read through HogQL, and the survey:read / survey:write scopes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { queryRows } from '../../services/platform/clickhouse'
import { systemClock } from '../../services/platform/clock'
import type { ConfigLog } from '../../services/platform/log/config-log'
import { RunningSurveys } from '../../services/surveys/running'
import { SurveyResponseLimits } from '../../services/surveys/response-limits'
import { SurveyStore } from '../../services/surveys/store'
import pino from 'pino'

/** PostHog's SurveySerializer fields. */
const SURVEY_FIELDS = [
  'id',
  'name',
  'description',
  'type',
  'schedule',
  'linked_flag',
  'linked_flag_id',
  'targeting_flag',
  'internal_targeting_flag',
  'questions',
  'conditions',
  'appearance',
  'created_at',
  'created_by',
  'start_date',
  'end_date',
  'archived',
  'responses_limit',
  'feature_flag_keys',
  'iteration_count',
  'iteration_frequency_days',
  'iteration_start_dates',
  'current_iteration',
  'current_iteration_start_date',
  'response_sampling_start_date',
  'response_sampling_interval_type',
  'response_sampling_interval',
  'response_sampling_limit',
  'response_sampling_daily_limits',
  'enable_partial_responses',
  'user_access_level',
]
/** PostHog's SurveyAPISerializer fields: what posthog-js reads. */
const PUBLIC_FIELDS = [
  'id',
  'name',
  'type',
  'linked_flag_key',
  'targeting_flag_key',
  'internal_targeting_flag_key',
  'questions',
  'conditions',
  'appearance',
  'start_date',
  'end_date',
  'current_iteration',
  'current_iteration_start_date',
  'schedule',
  'enable_partial_responses',
]

const QUESTIONS = [
  { type: 'open', question: 'What brought you here?' },
  { type: 'link', question: 'Read the changelog', link: 'https://example.com/changelog', buttonText: 'Open' },
  {
    type: 'rating',
    question: 'How likely are you to recommend us?',
    scale: 10,
    display: 'number',
    lowerBoundLabel: 'No',
    upperBoundLabel: 'Yes',
  },
  {
    type: 'single_choice',
    question: 'Your role?',
    choices: ['Engineer', 'Designer', 'Other'],
    hasOpenChoice: true,
    branching: { type: 'end' },
  },
  { type: 'multiple_choice', question: 'Which features?', choices: ['Trends', 'Funnels'], shuffleOptions: true },
]

describe('surveys', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  const base = () => `/api/projects/${t.projectId}/surveys/`
  const publicList = async (): Promise<any> => (await fetch(`${t.url}/api/surveys/?token=${t.projectKey}`)).json()
  const remoteConfig = async (): Promise<any> => (await fetch(`${t.url}/array/${t.projectKey}/config`)).json()

  beforeAll(async () => {
    t = await startWren({ WREN_OWNER_EMAIL: 'surveys@example.com', WREN_OWNER_PASSWORD: 'surveys passphrase' })
    call = api(t)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('creates a survey of every question type in PostHog’s shape, with a targeting flag made from its filters', async () => {
    const made = await call('POST', base(), {
      name: 'Onboarding',
      description: 'private notes',
      type: 'popover',
      questions: QUESTIONS,
      conditions: {
        url: '/pricing',
        urlMatchType: 'icontains',
        deviceTypes: ['Desktop'],
        deviceTypesMatchType: 'exact',
        seenSurveyWaitPeriodInDays: 7,
        events: { values: [{ name: 'signed_up' }] },
      },
      appearance: { backgroundColor: '#eeeded', position: 'right' },
      targeting_flag_filters: {
        groups: [{ properties: [{ key: 'plan', value: ['pro'], operator: 'exact', type: 'person' }], rollout_percentage: 100 }],
      },
      responses_limit: 100,
      iteration_count: 2,
      iteration_frequency_days: 30,
    })
    expect(made.status, made.text).toBe(201)
    expect(Object.keys(made.body).sort()).toEqual([...SURVEY_FIELDS].sort())
    expect(made.body).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Onboarding',
      type: 'popover',
      schedule: 'once',
      start_date: null,
      end_date: null,
      archived: false,
      responses_limit: 100,
      iteration_start_dates: null,
      created_by: { email: 'surveys@example.com' },
      targeting_flag: {
        key: expect.stringMatching(/^survey-targeting-[0-9a-f]{10}$/),
        name: 'Targeting flag for survey Onboarding',
        active: false,
      },
    })
    // Each question keeps what was sent and gets an id.
    expect(made.body.questions).toEqual(QUESTIONS.map((q) => ({ ...q, id: expect.stringMatching(/^[0-9a-f-]{36}$/) })))
    expect(new Set(made.body.questions.map((q: { id: string }) => q.id)).size).toBe(5)
    // The flag is a flag of the project, as the flags API shows it.
    const flag = await call('GET', `/api/projects/${t.projectId}/feature_flags/${made.body.targeting_flag.id}/`)
    expect(flag.body).toMatchObject({
      key: made.body.targeting_flag.key,
      active: false,
      filters: { groups: [{ rollout_percentage: 100 }] },
    })
    expect((await call('GET', `${base()}${made.body.id}/`)).body).toEqual(made.body)
    // Not launched: posthog-js is given nothing.
    expect((await publicList()).surveys).toEqual([])
    expect((await remoteConfig()).surveys).toBe(false)
  })

  it('refuses what PostHog’s serializer refuses, naming the field', async () => {
    const refused = async (body: Record<string, unknown>) => {
      const res = await call('POST', base(), { name: 'Refused', type: 'popover', ...body })
      expect(res.status, res.text).toBe(400)
      return { attr: res.body.attr, detail: res.body.detail }
    }
    expect(await refused({ name: 'Onboarding' })).toEqual({ attr: 'name', detail: 'There is already a survey with this name.' })
    expect(await refused({ type: 'banner' })).toMatchObject({ attr: 'type' })
    expect((await call('POST', base(), { name: 'No type' })).body.attr).toBe('type')
    expect(await refused({ questions: [{ type: 'open' }] })).toEqual({ attr: 'questions', detail: 'Question text is required' })
    expect(await refused({ questions: 'why?' })).toEqual({ attr: 'questions', detail: 'Questions must be a list of objects' })
    expect(await refused({ questions: [{ type: 'single_choice', question: 'Pick', choices: ['a', ' '] }] })).toEqual({
      attr: 'questions',
      detail: 'Question choices cannot be empty',
    })
    expect(await refused({ questions: [{ type: 'link', question: 'Go', link: 'javascript:alert(1)' }] })).toEqual({
      attr: 'questions',
      detail: 'Link must be a URL with one of these schemes: [https, mailto]',
    })
    expect(await refused({ conditions: ['url'] })).toEqual({ attr: 'conditions', detail: 'Conditions must be an object' })
    expect(await refused({ schedule: 'hourly' })).toEqual({ attr: 'schedule', detail: 'Schedule must be one of: once, recurring, always' })
    expect(await refused({ linked_flag_id: 999999 })).toEqual({
      attr: 'linked_flag_id',
      detail: 'Feature Flag with this ID does not exist',
    })
    expect(await refused({ iteration_count: 501 })).toMatchObject({ attr: 'iteration_count' })
    expect(await refused({ targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 100 }] } })).toMatchObject({
      attr: 'targeting_flag_filters',
      detail: expect.stringContaining('rolls out to everyone'),
    })
    expect(await refused({ type: 'external_survey', conditions: { url: '/x' } })).toEqual({
      attr: 'conditions',
      detail: 'The following condition fields are not allowed for external surveys: url',
    })
    expect(await refused({ start_date: 'soon' })).toMatchObject({ attr: 'start_date' })
    const variantFlag = await call('POST', `/api/projects/${t.projectId}/feature_flags/`, {
      key: 'survey-variants',
      filters: {
        groups: [{ properties: [], rollout_percentage: 100 }],
        multivariate: {
          variants: [
            { key: 'a', rollout_percentage: 50 },
            { key: 'b', rollout_percentage: 50 },
          ],
        },
      },
    })
    expect(await refused({ linked_flag_id: variantFlag.body.id, conditions: { linkedFlagVariant: 'c' } })).toEqual({
      attr: 'conditions',
      detail: "Feature flag variant 'c' does not exist. Available variants: a, b",
    })
    expect((await call('GET', base())).body.count).toBe(1)
  })

  it('launches and stops: posthog-js is handed the running survey, and its targeting flag is on while it runs', async () => {
    const [survey] = (await call('GET', base())).body.results
    const launched = await call('PATCH', `${base()}${survey.id}/`, { start_date: '2026-11-01T00:00:00Z' })
    expect(launched.status, launched.text).toBe(200)
    expect(launched.body).toMatchObject({
      start_date: '2026-11-01T00:00:00.000Z',
      current_iteration: 1,
      iteration_start_dates: ['2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'],
      targeting_flag: { active: true },
      internal_targeting_flag: { active: true },
    })
    const { surveys } = await publicList()
    expect(surveys).toHaveLength(1)
    expect(Object.keys(surveys[0]).sort()).toEqual([...PUBLIC_FIELDS].sort())
    expect(surveys[0]).toMatchObject({
      id: survey.id,
      targeting_flag_key: survey.targeting_flag.key,
      internal_targeting_flag_key: survey.internal_targeting_flag.key,
      questions: survey.questions,
      conditions: survey.conditions,
      current_iteration: 1,
    })
    expect(surveys[0]).not.toHaveProperty('description')
    expect((await remoteConfig()).surveys).toEqual(surveys)
    const flags = await fetch(`${t.url}/flags/?v=2&config=true`, {
      method: 'POST',
      body: JSON.stringify({ token: t.projectKey, distinct_id: 'visitor', person_properties: { plan: 'pro' } }),
    })
    const answer: any = await flags.json()
    expect(answer.surveys).toBe(true)
    expect(answer.flags[survey.targeting_flag.key].enabled).toBe(true)
    expect(answer.flags[survey.internal_targeting_flag.key].enabled).toBe(true)
    // Someone who has answered it (posthog-js sets the person property) is not asked again.
    const answered = await fetch(`${t.url}/flags/?v=2`, {
      method: 'POST',
      body: JSON.stringify({
        token: t.projectKey,
        distinct_id: 'visitor',
        person_properties: { plan: 'pro', [`$survey_responded/${survey.id}/1`]: true },
      }),
    })
    const answeredBody: any = await answered.json()
    expect(answeredBody.flags[survey.internal_targeting_flag.key].enabled).toBe(false)
    // A project that turned surveys off hands posthog-js none.
    expect((await call('PATCH', `/api/projects/${t.projectId}/`, { surveys_opt_in: false })).status).toBe(200)
    expect((await publicList()).surveys).toEqual([])
    expect((await remoteConfig()).surveys).toBe(false)
    await call('PATCH', `/api/projects/${t.projectId}/`, { surveys_opt_in: true })
    expect((await publicList()).surveys).toHaveLength(1)
    // Stopped, then archived: gone from what posthog-js reads, the flag off.
    const stopped = await call('PATCH', `${base()}${survey.id}/`, { end_date: '2026-11-20T00:00:00Z' })
    expect(stopped.body).toMatchObject({
      end_date: '2026-11-20T00:00:00.000Z',
      targeting_flag: { active: false },
      internal_targeting_flag: { active: false },
    })
    expect((await publicList()).surveys).toEqual([])
    const resumed = await call('PATCH', `${base()}${survey.id}/`, {
      end_date: null,
      questions: [...survey.questions, { type: 'open', question: 'Anything else?' }],
    })
    expect(resumed.body.questions.slice(0, 5)).toEqual(survey.questions)
    expect(resumed.body.questions[5]).toMatchObject({ question: 'Anything else?', id: expect.any(String) })
    expect((await publicList()).surveys).toHaveLength(1)
    // What decide holds after a restart, loaded from storage, is what it was told of.
    const config = { onChange: () => undefined } as unknown as ConfigLog
    const keys = new Map([survey.targeting_flag, survey.internal_targeting_flag].map((f) => [f.id, f.key]))
    const loaded = await RunningSurveys.start(t.wren.clickhouse, systemClock, config, (_team, id) => keys.get(id) ?? null)
    expect(loaded.running(t.projectId)).toEqual((await publicList()).surveys)
    await call('PATCH', `${base()}${survey.id}/`, { archived: true })
    expect((await publicList()).surveys).toEqual([])
    expect((await remoteConfig()).surveys).toBe(false)
  })

  it('counts shown, dismissed and sent as PostHog’s stats do, and reads the responses through HogQL', async () => {
    const made = await call('POST', base(), {
      name: 'NPS',
      type: 'popover',
      start_date: '2026-11-01T00:00:00Z',
      questions: [{ type: 'rating', question: 'Score?', scale: 10, display: 'number' }],
    })
    const id = made.body.id
    const questionId = made.body.questions[0].id
    const event = (name: string, person: string, at: string, extra: Record<string, unknown> = {}) => ({
      event: name,
      distinct_id: person,
      timestamp: at,
      properties: { $survey_id: id, $survey_name: 'NPS', ...extra },
    })
    await captureBatch(t, [
      event('survey shown', 'ann', '2026-11-02T10:00:00Z'),
      event('survey shown', 'bob', '2026-11-02T11:00:00Z'),
      event('survey shown', 'cyd', '2026-11-03T09:00:00Z'),
      event('survey shown', 'dee', '2026-11-04T09:00:00Z'),
      // ann answers in two steps of one submission: one response, the latest.
      event('survey sent', 'ann', '2026-11-02T10:01:00Z', {
        $survey_response: 7,
        [`$survey_response_${questionId}`]: 7,
        $survey_submission_id: 's1',
      }),
      event('survey sent', 'ann', '2026-11-02T10:02:00Z', {
        $survey_response: 9,
        [`$survey_response_${questionId}`]: 9,
        $survey_submission_id: 's1',
      }),
      event('survey sent', 'bob', '2026-11-02T11:01:00Z', {
        $survey_response: 4,
        [`$survey_response_${questionId}`]: 4,
        $survey_submission_id: 's2',
      }),
      // bob also dismissed it: he counts as having answered. cyd dismissed a partial answer: not a dismissal.
      event('survey dismissed', 'bob', '2026-11-02T11:02:00Z'),
      event('survey dismissed', 'cyd', '2026-11-03T09:01:00Z', { $survey_partially_completed: true }),
      event('survey dismissed', 'dee', '2026-11-04T09:01:00Z'),
      // Another survey's event is not this one's.
      { event: 'survey shown', distinct_id: 'eve', timestamp: '2026-11-04T10:00:00Z', properties: { $survey_id: 'another' } },
    ])
    await drained(t.wren)
    const stats = await call('GET', `${base()}${id}/stats/`)
    expect(stats.status, stats.text).toBe(200)
    expect(stats.body).toEqual({
      survey_id: id,
      start_date: '2026-11-01T00:00:00.000Z',
      end_date: null,
      stats: {
        'survey shown': {
          total_count: 4,
          unique_persons: 4,
          first_seen: '2026-11-02T10:00:00.000Z',
          last_seen: '2026-11-04T09:00:00.000Z',
          // 4 shown − 2 dismissed − 2 sent; 4 persons − 1 (dee) − 2 (ann, bob).
          total_count_only_seen: 0,
          unique_persons_only_seen: 1,
        },
        'survey dismissed': {
          total_count: 2,
          unique_persons: 1,
          first_seen: '2026-11-02T11:02:00.000Z',
          last_seen: '2026-11-04T09:01:00.000Z',
          total_count_only_seen: 0,
          unique_persons_only_seen: 0,
        },
        'survey sent': {
          total_count: 2,
          unique_persons: 2,
          first_seen: '2026-11-02T10:02:00.000Z',
          last_seen: '2026-11-02T11:01:00.000Z',
          total_count_only_seen: 0,
          unique_persons_only_seen: 0,
        },
      },
      rates: { response_rate: 50, dismissal_rate: 50, unique_users_response_rate: 50, unique_users_dismissal_rate: 25 },
    })
    const ranged = await call('GET', `${base()}${id}/stats/?date_from=2026-11-03T00:00:00Z`)
    expect(ranged.body.stats['survey shown'].total_count).toBe(2)
    expect((await call('GET', `${base()}${id}/stats/?date_from=tomorrow`)).status).toBe(400)
    expect((await call('GET', `${base()}${id}/stats/?date_from=2026-11-05T00:00:00Z&date_to=2026-11-01T00:00:00Z`)).body).toMatchObject({
      attr: 'date_from',
      detail: 'date_from must be before date_to',
    })
    // Every survey not archived, together: the archived Onboarding has none, so the same figures.
    const all = await call('GET', `${base()}stats/`)
    expect(all.body.stats).toEqual(stats.body.stats)
    expect(all.body.rates).toEqual(stats.body.rates)
    expect((await call('GET', `${base()}responses_count/`)).body).toEqual({ [id]: 2 })
    // The responses, as PostHog's survey results page reads them.
    const hogql = await call('POST', `/api/projects/${t.projectId}/query/`, {
      query: {
        kind: 'HogQLQuery',
        query: `SELECT distinct_id, properties.$survey_response, properties['$survey_response_${questionId}'] FROM events WHERE event = 'survey sent' AND properties.$survey_id = '${id}' ORDER BY timestamp`,
      },
    })
    expect(hogql.status, hogql.text).toBe(200)
    expect(hogql.body.results).toEqual([
      ['ann', '7', '7'],
      ['ann', '9', '9'],
      ['bob', '4', '4'],
    ])
  })

  it('deletes softly, with its flags; needs survey:read to read and survey:write to change', async () => {
    const made = await call('POST', base(), {
      name: 'Short-lived',
      type: 'api',
      targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 20 }] },
    })
    const reader = await call('POST', '/api/personal_api_keys/', { label: 'survey reader', scopes: ['survey:read'] })
    expect((await call('GET', base(), undefined, reader.body.value)).status).toBe(200)
    expect((await call('GET', `${base()}${made.body.id}/`, undefined, reader.body.value)).body.user_access_level).toBe('viewer')
    expect((await call('POST', base(), { name: 'x', type: 'api' }, reader.body.value)).status).toBe(403)
    expect((await call('PATCH', `${base()}${made.body.id}/`, { name: 'y' }, reader.body.value)).status).toBe(403)
    expect((await call('DELETE', `${base()}${made.body.id}/`, undefined, reader.body.value)).status).toBe(403)
    const other = await call('POST', '/api/personal_api_keys/', { label: 'flags only', scopes: ['feature_flag:read'] })
    expect((await call('GET', base(), undefined, other.body.value)).status).toBe(403)

    expect((await call('DELETE', `${base()}${made.body.id}/`)).status).toBe(204)
    expect((await call('GET', `${base()}${made.body.id}/`)).status).toBe(404)
    expect((await call('DELETE', `${base()}${made.body.id}/`)).status).toBe(404)
    expect((await call('GET', base())).body.results.map((s: { name: string }) => s.name)).toEqual(['NPS', 'Onboarding'])
    for (const flag of [made.body.targeting_flag, made.body.internal_targeting_flag])
      expect((await call('GET', `/api/projects/${t.projectId}/feature_flags/${flag.id}/`)).body.deleted).toBe(true)
    const kept = await queryRows<{ n: number }>(
      t.wren.clickhouse,
      'SELECT count() AS n FROM surveys FINAL WHERE team_id = {team:Int64} AND deleted = 1',
      {
        team: t.projectId,
      },
    )
    expect(Number(kept[0].n)).toBe(1)
  })

  it('carries the actions that show a survey as posthog-js matches them: their name and steps', async () => {
    const action = await call('POST', `/api/projects/${t.projectId}/actions/`, {
      name: 'Checked out',
      steps: [{ event: '$pageview', url: '/checkout/done', url_matching: 'contains' }],
    })
    const filtered = await call('POST', `/api/projects/${t.projectId}/actions/`, {
      name: 'Big order',
      steps: [{ event: 'order', properties: [{ key: 'total', value: 100, operator: 'gt', type: 'event' }] }],
    })
    const made = await call('POST', base(), {
      name: 'After checkout',
      type: 'popover',
      start_date: '2026-11-01T00:00:00Z',
      questions: [{ type: 'open', question: 'How was it?' }],
      conditions: { actions: { values: [{ id: action.body.id }] } },
    })
    expect(made.status, made.text).toBe(201)
    const shown = { values: [{ id: action.body.id, name: 'Checked out', steps: action.body.steps }] }
    expect(made.body.conditions.actions).toEqual(shown)
    const [running] = (await publicList()).surveys.filter((s: { id: string }) => s.id === made.body.id)
    expect(running.conditions.actions).toEqual(shown)
    const refused = async (values: unknown[]) =>
      (await call('PATCH', `${base()}${made.body.id}/`, { conditions: { actions: { values } } })).body
    expect(await refused([{ id: filtered.body.id }])).toMatchObject({
      attr: 'conditions',
      detail: 'Survey cannot be activated by an Action with property filters defined on it.',
    })
    expect(await refused([{ id: 999999 }])).toMatchObject({ attr: 'conditions', detail: 'Action 999999 does not exist in this project.' })
  })

  it('stops a survey once its responses reach responses_limit, as PostHog’s periodic check does', async () => {
    const made = await call('POST', base(), {
      name: 'Limited',
      type: 'popover',
      start_date: '2026-11-01T00:00:00Z',
      responses_limit: 2,
      questions: [{ type: 'open', question: 'Why?' }],
    })
    const sent = (person: string) => ({
      event: 'survey sent',
      distinct_id: person,
      properties: { $survey_id: made.body.id, $survey_response: 'ok' },
    })
    // The job as the api process runs it, on this Wren's storage (its configuration log: one writer here, nobody listening).
    const log = { claimVersion: async () => true, publish: async () => undefined, onChange: () => undefined } as unknown as ConfigLog
    const store = new SurveyStore(t.wren.clickhouse, systemClock, log)
    const limits = new SurveyResponseLimits(store, t.wren.clickhouse, systemClock, pino({ level: 'silent' }))
    await captureBatch(t, [sent('one')])
    await drained(t.wren)
    expect(await limits.check()).toEqual([])
    await captureBatch(t, [sent('two')])
    await drained(t.wren)
    expect(await limits.check()).toEqual([made.body.id])
    const stopped = (await call('GET', `${base()}${made.body.id}/`)).body
    expect(stopped.end_date).not.toBeNull()
    expect(stopped.responses_limit).toBeNull()
    expect(await limits.check()).toEqual([])
  })
})
