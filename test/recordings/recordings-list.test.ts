// The recordings list's filters (PostHog's RecordingsQuery parameters), the person each recording embeds,
// recordings of hidden persons, console line search (and none kept for a project that does not capture
// console logs), and recording_domains in the remote config.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey, createProject } from '../support/management'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { recordingsProcessed, sendSnapshots } from '../support/recordings'

// One Wren for the file: the remote config's case in a project of its own.
let t: TestWren
beforeAll(async () => {
  t = await startWren({ WREN_RECORDINGS_WAIT_MS: '20' })
})
afterAll(async () => {
  await t?.close()
})

describe('session recordings list filters', () => {
  let call: ReturnType<typeof api>
  let base: string
  // On a whole second, so each short session's duration (seconds crossed) is 0.
  const start = Math.floor((Date.now() - 120_000) / 1000) * 1000

  const meta = (at: number, href: string) => ({ type: 4, timestamp: start + at, data: { href, width: 800, height: 600 } })
  const click = (at: number) => ({ type: 3, timestamp: start + at, data: { source: 2, type: 2, id: 1, x: 10, y: 10 } })
  const log = (at: number, level: string, text: string) => ({
    type: 6,
    timestamp: start + at,
    data: { plugin: 'rrweb/console@1', payload: { level, payload: [text], trace: [] } },
  })
  const send = (sessionId: string, distinctId: string, events: unknown[]) =>
    sendSnapshots(t, { sessionId, distinctId, events, properties: { $lib: 'web' } })
  const processed = () => recordingsProcessed(t.wren)
  /** The ids the list answers for these query parameters (JSON values encoded). */
  const ids = async (query: Record<string, unknown> = {}, key?: string) => {
    const qs = new URLSearchParams(
      Object.entries(query).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)] as [string, string]),
    )
    const res = await call('GET', `${base}?${qs}`, undefined, key)
    expect(res.status, res.text).toBe(200)
    return res.body.results.map((r: { id: string }) => r.id)
  }
  const recording = (key: string, operator: string, value: unknown) => [{ type: 'recording', key, operator, value }]

  beforeAll(async () => {
    call = api(t)
    base = `/api/projects/${t.projectId}/session_recordings/`
    expect((await call('PATCH', `/api/projects/${t.projectId}/`, { session_recording_opt_in: true })).status).toBe(200)
    // Persons and the sessions' events.
    await captureBatch(t, [
      {
        event: '$pageview',
        distinct_id: 'alice',
        properties: { $session_id: 'list-err', $current_url: 'https://shop.example/checkout', $set: { email: 'alice@shop.example' } },
      },
      { event: 'signed_up', distinct_id: 'bob', properties: { $session_id: 'list-calm', $set: { plan: 'pro' } } },
      { event: '$pageview', distinct_id: 'carol', properties: { $session_id: 'list-hidden', $current_url: 'https://shop.example/secret' } },
    ])
    await drained(t.wren)
    await send('list-err', 'alice', [
      meta(0, 'https://shop.example/checkout?step=1'),
      click(500),
      log(600, 'log', 'hello from checkout'),
      log(700, 'error', 'payment failed: boom'),
    ])
    await send('list-calm', 'bob', [meta(1_000, 'https://shop.example/home'), click(2_000), click(3_000), click(21_000)])
    await send('list-hidden', 'carol', [meta(2_000, 'https://shop.example/secret'), click(2_500)])
    await processed()
    // A project that does not capture console logs keeps none (PostHog neither counts nor stores them).
    expect((await call('PATCH', `/api/projects/${t.projectId}/`, { capture_console_log_opt_in: false })).status).toBe(200)
    await send('list-quiet', 'dave', [meta(3_000, 'https://shop.example/quiet'), log(3_100, 'error', 'quiet boom')])
    await processed()
  })

  it('embeds the person of each recording and says where it is stored', async () => {
    const res = await call('GET', base)
    expect(res.status).toBe(200)
    expect(res.body.results.map((r: any) => r.id)).toEqual(['list-quiet', 'list-hidden', 'list-calm', 'list-err'])
    const err = res.body.results.find((r: any) => r.id === 'list-err')
    expect(err.storage).toBe('object_storage')
    expect(err.person).toMatchObject({
      name: 'alice@shop.example',
      distinct_ids: ['alice'],
      properties: { email: 'alice@shop.example' },
    })
    expect(err.person.uuid).toMatch(/^[0-9a-f-]{36}$/)
    expect(typeof err.person.id).toBe('number')
    expect(res.body.results.find((r: any) => r.id === 'list-calm').person.properties).toMatchObject({ plan: 'pro' })
    // dave sent no event: no person.
    expect(res.body.results.find((r: any) => r.id === 'list-quiet').person).toBeNull()
    const one = await call('GET', `${base}list-err/`)
    expect(one.body.person).toMatchObject({ distinct_ids: ['alice'], properties: { email: 'alice@shop.example' } })
    expect(one.body.storage).toBe('object_storage')
  })

  it('filters on the recording’s own metadata (having_predicates)', async () => {
    expect(await ids({ having_predicates: recording('console_error_count', 'gt', 0) })).toEqual(['list-err'])
    expect(await ids({ having_predicates: recording('duration', 'gt', 10) })).toEqual(['list-calm'])
    expect(await ids({ having_predicates: recording('click_count', 'gte', 3) })).toEqual(['list-calm'])
    expect(await ids({ having_predicates: recording('click_count', 'lt', 1) })).toEqual(['list-quiet'])
    expect(await ids({ having_predicates: recording('active_seconds', 'gt', 0) })).toEqual(['list-hidden', 'list-calm', 'list-err'])
    expect(await ids({ having_predicates: recording('snapshot_source', 'exact', 'web'), session_ids: ['list-err'] })).toEqual(['list-err'])
    // PostHog's older form: a recording filter in `properties`.
    expect(await ids({ properties: recording('console_error_count', 'gt', 0) })).toEqual(['list-err'])
  })

  it('finds sessions by a url they visited', async () => {
    expect(await ids({ having_predicates: recording('visited_page', 'icontains', 'CHECKOUT') })).toEqual(['list-err'])
    expect(await ids({ having_predicates: recording('visited_page', 'exact', 'https://shop.example/home') })).toEqual(['list-calm'])
    expect(await ids({ having_predicates: recording('visited_page', 'exact', 'https://shop.example/') })).toEqual([])
    expect(await ids({ having_predicates: recording('visited_page', 'not_icontains', 'shop.example/') })).toEqual([])
  })

  it('finds sessions by the events that happened in them', async () => {
    expect(await ids({ events: [{ id: '$pageview' }] })).toEqual(['list-hidden', 'list-err'])
    expect(await ids({ events: [{ id: 'signed_up' }] })).toEqual(['list-calm'])
    expect(
      await ids({
        events: [{ id: '$pageview', properties: [{ key: '$current_url', operator: 'icontains', value: 'checkout', type: 'event' }] }],
      }),
    ).toEqual(['list-err'])
    expect(await ids({ events: [{ id: '$pageview' }, { id: 'signed_up' }] })).toEqual([])
    expect(await ids({ events: [{ id: '$pageview' }, { id: 'signed_up' }], operand: 'OR' })).toEqual([
      'list-hidden',
      'list-calm',
      'list-err',
    ])
    expect(await ids({ events: [{ id: 'never_sent' }] })).toEqual([])
    // An event property filter in `properties`: some event of the session has it.
    expect(await ids({ properties: [{ key: '$current_url', operator: 'icontains', value: 'secret', type: 'event' }] })).toEqual([
      'list-hidden',
    ])
    // Actions: an event of the session matches the action.
    const action = await call('POST', `/api/projects/${t.projectId}/actions/`, { name: 'Signed up', steps: [{ event: 'signed_up' }] })
    expect(action.status).toBe(201)
    expect(await ids({ actions: [{ id: action.body.id }] })).toEqual(['list-calm'])
  })

  it('filters on person properties, distinct ids, session ids and dates, and orders', async () => {
    expect(await ids({ properties: [{ key: 'email', operator: 'icontains', value: 'ALICE', type: 'person' }] })).toEqual(['list-err'])
    expect(await ids({ properties: [{ key: 'plan', operator: 'exact', value: 'pro', type: 'person' }] })).toEqual(['list-calm'])
    expect(await ids({ distinct_ids: ['bob', 'dave'] })).toEqual(['list-quiet', 'list-calm'])
    expect(await ids({ session_ids: ['list-err', 'list-calm', 'nope'] })).toEqual(['list-calm', 'list-err'])
    expect(await ids({ date_from: '-1h' })).toHaveLength(4)
    expect(await ids({ date_to: '-1h' })).toEqual([])
    expect(await ids({ date_from: new Date(start + 1_500).toISOString() })).toEqual(['list-quiet', 'list-hidden'])
    // Ties go by session id, in the same direction.
    expect(await ids({ order: 'duration' })).toEqual(['list-calm', 'list-quiet', 'list-hidden', 'list-err'])
    expect(await ids({ order: 'click_count', order_direction: 'ASC', session_ids: ['list-calm', 'list-err'] })).toEqual([
      'list-err',
      'list-calm',
    ])
    expect(await ids({ order: 'start_time', order_direction: 'ASC' })).toEqual(['list-err', 'list-calm', 'list-hidden', 'list-quiet'])
  })

  it('searches console lines by level and message, one line holding every filter', async () => {
    const line = (key: string, operator: string, value: unknown) => ({ type: 'log_entry', key, operator, value })
    expect(await ids({ console_log_filters: [line('level', 'exact', ['error'])] })).toEqual(['list-err'])
    expect(await ids({ console_log_filters: [line('message', 'icontains', 'BOOM')] })).toEqual(['list-err'])
    expect(await ids({ console_log_filters: [line('level', 'exact', 'info'), line('message', 'icontains', 'hello')] })).toEqual([
      'list-err',
    ])
    // No single line is an error saying hello.
    expect(await ids({ console_log_filters: [line('level', 'exact', 'error'), line('message', 'icontains', 'hello')] })).toEqual([])
    expect(
      await ids({ console_log_filters: [line('level', 'exact', 'error'), line('message', 'icontains', 'hello')], operand: 'OR' }),
    ).toEqual(['list-err'])
    // The project stopped capturing console logs before list-quiet came: nothing of its console is kept.
    const quiet = await call('GET', `${base}list-quiet/`)
    expect(quiet.body).toMatchObject({ console_error_count: 0, console_log_count: 0, console_warn_count: 0 })
    expect(await ids({ console_log_filters: [line('message', 'icontains', 'quiet')] })).toEqual([])
  })

  it('leaves out the recordings of persons hidden from the key', async () => {
    const limited = await createKey(t, ['session_recording:read'])
    const carol = (await call('GET', `/api/projects/${t.projectId}/persons/?distinct_id=carol`)).body.results[0]
    const rule = await call('PUT', `/api/environments/${t.projectId}/persons/${carol.id}/access_controls/`, {
      access_level: 'none',
      organization_member: limited.id,
    })
    expect(rule.status).toBe(200)
    expect(await ids({}, limited.value)).toEqual(['list-quiet', 'list-calm', 'list-err'])
    expect((await call('GET', `${base}list-hidden/`, undefined, limited.value)).status).toBe(404)
    expect((await call('GET', `${base}list-err/`, undefined, limited.value)).status).toBe(200)
    // The rule is for that key only.
    expect(await ids()).toContain('list-hidden')
    expect((await call('GET', `${base}list-hidden/`)).status).toBe(200)
  })

  it('answers a 400 naming the parameter for a bad filter', async () => {
    for (const [query, attr] of [
      [{ having_predicates: 'not json' }, 'having_predicates'],
      [{ having_predicates: recording('colour', 'exact', 'red') }, 'having_predicates'],
      [{ having_predicates: recording('click_count', 'approximately', 3) }, 'having_predicates[0]'],
      [{ having_predicates: recording('click_count', 'gt', 'many') }, 'having_predicates'],
      [{ console_log_filters: [{ type: 'log_entry', key: 'colour', operator: 'exact', value: 'red' }] }, 'console_log_filters'],
      [{ properties: [{ type: 'weather', key: 'rain' }] }, 'properties[0]'],
      [{ events: { id: '$pageview' } }, 'events'],
      [{ events: [{ id: 7 }] }, 'events'],
      [{ actions: [{ id: 987654 }] }, 'actions'],
      [{ session_ids: 'list-err' }, 'session_ids'],
      [{ order: 'loudness' }, 'order'],
      [{ order_direction: 'sideways' }, 'order_direction'],
      [{ operand: 'XOR', events: [{ id: 'x' }] }, 'operand'],
      [{ date_from: 'the day before' }, 'date_from'],
    ] as const) {
      const qs = new URLSearchParams(
        Object.entries(query).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)] as [string, string]),
      )
      const res = await call('GET', `${base}?${qs}`)
      expect({ query, status: res.status, attr: res.body?.attr }).toEqual({ query, status: 400, attr })
      expect(res.body.type).toBe('validation_error')
    }
  })
})

describe('recording_domains in the remote config', () => {
  let project: { id: number; api_token: string }
  beforeAll(async () => {
    project = await createProject(t, 'Domains')
  })

  it('turns recording off for pages of other sites, by Origin or Referer', async () => {
    const call = api(t)
    const configFrom = async (headers: Record<string, string>) =>
      ((await (await fetch(`${t.url}/array/${project.api_token}/config`, { headers })).json()) as { sessionRecording: unknown })
        .sessionRecording
    const flagsFrom = async (headers: Record<string, string>) =>
      (
        (await (
          await fetch(`${t.url}/flags/?v=2&config=true`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers },
            body: JSON.stringify({ token: project.api_token, distinct_id: 'u1' }),
          })
        ).json()) as { sessionRecording: unknown }
      ).sessionRecording
    expect((await call('PATCH', `/api/projects/${project.id}/`, { session_recording_opt_in: true })).status).toBe(200)
    // No domains: every site records.
    expect(await configFrom({ origin: 'https://anywhere.example' })).toMatchObject({ endpoint: '/s/' })

    const patched = await call('PATCH', `/api/projects/${project.id}/`, {
      recording_domains: ['https://shop.example', 'https://*.wren.test'],
    })
    expect(patched.status).toBe(200)
    expect(await configFrom({ origin: 'https://shop.example' })).toMatchObject({ endpoint: '/s/' })
    expect(await configFrom({ referer: 'https://app.wren.test/checkout?x=1' })).toMatchObject({ endpoint: '/s/' })
    expect(await flagsFrom({ origin: 'https://shop.example' })).toMatchObject({ endpoint: '/s/' })
    expect(await configFrom({ origin: 'https://evil.example' })).toBe(false)
    expect(await configFrom({ referer: 'https://wren.test/' })).toBe(false)
    expect(await configFrom({})).toBe(false)
    expect(await flagsFrom({ origin: 'https://evil.example' })).toBe(false)
    // PostHog's mobile SDKs send no Origin.
    expect(await configFrom({ 'user-agent': 'posthog-ios/3.1.0' })).toMatchObject({ endpoint: '/s/' })
    const res = await fetch(`${t.url}/array/${project.api_token}/config`, { headers: { origin: 'https://shop.example' } })
    expect(res.headers.get('vary')).toMatch(/Referer/)
  })
})
