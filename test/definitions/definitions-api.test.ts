// Event and property definitions over HTTP: what ingestion saw in posthog-node-shaped batches, listed as
// PostHog's /event_definitions/ and /property_definitions/ list them (search, event types, event names,
// paging), property types read from values, the scopes, and other projects kept apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { createKey, createProject } from '../support/management'

const DAY = 86_400_000

describe('event and property definitions', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let project: string
  let before: number
  let after: number
  const ev = (event: string, distinct_id: string, properties: Record<string, unknown> = {}, timestamp = new Date().toISOString()) => ({
    event,
    distinct_id,
    timestamp,
    properties: { $lib: 'posthog-node', $lib_version: '4.0.0', ...properties },
  })
  const names = (body: any) => body.results.map((r: any) => r.name)
  const property = async (name: string, query = '') => {
    const res = await call('GET', `${project}/property_definitions/?limit=1000${query}`)
    expect(res.status, res.text).toBe(200)
    return res.body.results.find((r: any) => r.name === name)
  }

  beforeAll(async () => {
    t = await startWren()
    call = api(t)
    project = `/api/projects/${t.projectId}`
    before = Date.now()
    await captureBatch(t, [
      ev('$pageview', 'u1', { $current_url: 'https://shop.example/', flip: 5, $set: { email: 'u1@example.com', age: 31 } }),
      ev('$pageview', 'u2', { $current_url: 'https://shop.example/pricing' }),
      // Older than 30 days: a definition, but no part of the volume.
      ev('$pageview', 'u3', { $current_url: 'https://shop.example/old' }, new Date(Date.now() - 40 * DAY).toISOString()),
      ev('signed_up', 'u1', {
        plan: 'pro',
        price: 49.5,
        is_trial: true,
        renews_on: '2026-04-01T00:00:00Z',
        note: null,
        utm_campaign: 2026,
        $set_once: { first_plan: 'free' },
      }),
      ev('$groupidentify', 'u1', { $group_type: 'company', $group_key: 'acme', $group_set: { employees: 50, industry: 'retail' } }),
    ])
    await drained(t.wren)
    // The same property seen as text later: it keeps the type it was first seen with, as in PostHog.
    await captureBatch(t, [ev('$pageview', 'u1', { $current_url: 'https://shop.example/', flip: 'five' })])
    await drained(t.wren)
    after = Date.now()
  })
  afterAll(async () => {
    await t?.close()
  })

  it('lists the events seen, with when they were first and last seen and their volume over 30 days', async () => {
    const res = await call('GET', `${project}/event_definitions/`)
    expect(res.status, res.text).toBe(200)
    expect(res.body).toMatchObject({ count: 3, next: null, previous: null })
    const byName = Object.fromEntries(res.body.results.map((r: any) => [r.name, r]))
    expect(Object.keys(byName).sort()).toEqual(['$groupidentify', '$pageview', 'signed_up'])
    expect(byName.$pageview).toMatchObject({ volume_30_day: 3, query_usage_30_day: null, tags: [], id: expect.any(String) })
    expect(byName.signed_up.volume_30_day).toBe(1)
    for (const def of Object.values<any>(byName)) {
      const [created, lastSeen] = [Date.parse(def.created_at), Date.parse(def.last_seen_at)]
      expect(created).toBeGreaterThanOrEqual(before - 1000)
      expect(lastSeen).toBeGreaterThanOrEqual(created)
      expect(lastSeen).toBeLessThanOrEqual(after + 1000)
    }
    // The second batch moved $pageview's last sighting on, not its first.
    expect(Date.parse(byName.$pageview.last_seen_at)).toBeGreaterThan(Date.parse(byName.signed_up.last_seen_at))
    expect(byName.$pageview.created_at).toBe(byName.signed_up.created_at)
  })

  it('filters events by search and event type, orders them, and pages through them', async () => {
    const list = async (query: string) => {
      const res = await call('GET', `${project}/event_definitions/?${query}`)
      expect(res.status, res.text).toBe(200)
      return res.body
    }
    expect(names(await list('search=SIGN'))).toEqual(['signed_up'])
    expect(names(await list('search=page%20VIEW'))).toEqual(['$pageview'])
    expect(names(await list('event_type=event_custom'))).toEqual(['signed_up'])
    expect(names(await list('event_type=event_posthog&ordering=name'))).toEqual(['$groupidentify', '$pageview'])
    expect(names(await list('ordering=-name'))).toEqual(['signed_up', '$pageview', '$groupidentify'])
    expect(names(await list('excluded_properties=%5B%22signed_up%22%5D&ordering=name'))).toEqual(['$groupidentify', '$pageview'])

    const first = await list('ordering=name&limit=2')
    expect(first).toMatchObject({ count: 3, previous: null })
    expect(names(first)).toEqual(['$groupidentify', '$pageview'])
    const next = new URL(first.next)
    expect(Object.fromEntries(next.searchParams)).toEqual({ ordering: 'name', limit: '2', offset: '2' })
    const second = await list(next.search.slice(1))
    expect(names(second)).toEqual(['signed_up'])
    expect(second.next).toBeNull()
    expect(new URL(second.previous).searchParams.get('offset')).toBe('0')

    expect((await call('GET', `${project}/event_definitions/?event_type=actions`)).status).toBe(400)
  })

  it('infers each property type from its values as PostHog does, and keeps the first one', async () => {
    expect(await property('price')).toMatchObject({ property_type: 'Numeric', is_numerical: true, is_seen_on_filtered_events: null })
    expect(await property('is_trial')).toMatchObject({ property_type: 'Boolean', is_numerical: false })
    expect(await property('renews_on')).toMatchObject({ property_type: 'DateTime' })
    expect(await property('plan')).toMatchObject({ property_type: 'String' })
    expect(await property('$current_url')).toMatchObject({ property_type: 'String' })
    // utm_ properties are always text (a campaign named 2026 is still a name); null gives no type.
    expect(await property('utm_campaign')).toMatchObject({ property_type: 'String' })
    expect(await property('note')).toMatchObject({ property_type: null, is_numerical: false })
    // First seen as a number, then as text: still Numeric.
    expect(await property('flip')).toMatchObject({ property_type: 'Numeric', is_numerical: true })

    // $set and $set_once are person properties; they and other internal names are never event properties.
    const events = names((await call('GET', `${project}/property_definitions/?limit=1000`)).body)
    for (const hidden of ['$set', '$set_once', 'email', 'first_plan', '$group_type', '$group_set', 'employees'])
      expect(events).not.toContain(hidden)
    // Person properties: what the events $set and $set_once, with what ingestion adds to them (the URL and
    // campaign, and their $initial_ forms), as PostHog's definitions read the event it stored.
    const persons = (await call('GET', `${project}/property_definitions/?type=person`)).body
    expect(persons.results.map((r: any) => [r.name, r.property_type])).toEqual([
      ['$current_url', 'String'],
      ['$initial_current_url', 'String'],
      ['$initial_utm_campaign', 'Numeric'],
      ['age', 'Numeric'],
      ['email', 'String'],
      ['first_plan', 'String'],
      ['utm_campaign', 'String'],
    ])
    const groups = (await call('GET', `${project}/property_definitions/?type=group&group_type_index=0`)).body
    expect(groups.results.map((r: any) => [r.name, r.property_type])).toEqual([
      ['employees', 'Numeric'],
      ['industry', 'String'],
    ])
    expect((await call('GET', `${project}/property_definitions/?type=group&group_type_index=1`)).body.count).toBe(0)
    // Session properties are computed per session, not seen: the fields Wren computes, as PostHog lists its sessions table's.
    const sessions = (await call('GET', `${project}/property_definitions/?type=session`)).body
    expect(sessions.results.map((r: any) => [r.name, r.property_type, r.is_numerical])).toEqual([
      ['$session_duration', 'Duration', true],
      ['$entry_current_url', 'String', false],
      ['$end_current_url', 'String', false],
      ['$entry_pathname', 'String', false],
      ['$end_pathname', 'String', false],
      ['$pageview_count', 'Numeric', true],
      ['$autocapture_count', 'Numeric', true],
      ['$screen_count', 'Numeric', true],
      ['$start_timestamp', 'DateTime', false],
      ['$end_timestamp', 'DateTime', false],
    ])
    expect(sessions.count).toBe(10)
    const urls = (await call('GET', `${project}/property_definitions/?type=session&search=current%20URL&limit=1`)).body
    expect([urls.count, urls.results.map((r: any) => r.name), urls.next !== null]).toEqual([2, ['$entry_current_url'], true])
    const numeric = (await call('GET', `${project}/property_definitions/?type=session&is_numerical=true`)).body
    expect(numeric.results.map((r: any) => r.name)).toEqual(['$session_duration', '$pageview_count', '$autocapture_count', '$screen_count'])
  })

  it('marks, orders and filters properties by the events they were seen on, and by search, names and type', async () => {
    const list = async (query: string) => {
      const res = await call('GET', `${project}/property_definitions/?${query}`)
      expect(res.status, res.text).toBe(200)
      return res.body
    }
    const onSignup = `event_names=${encodeURIComponent('["signed_up"]')}`
    const marked = await list(onSignup)
    const seen = marked.results.filter((r: any) => r.is_seen_on_filtered_events).map((r: any) => r.name)
    expect(seen).toEqual(['$ip', '$lib', '$lib_version', 'is_trial', 'note', 'plan', 'price', 'renews_on', 'utm_campaign'])
    // Those seen on the events come first, then the others, each by name.
    expect(names(marked).slice(0, seen.length)).toEqual(seen)
    expect(marked.results.find((r: any) => r.name === '$current_url').is_seen_on_filtered_events).toBe(false)
    expect(names(await list(`${onSignup}&filter_by_event_names=true`))).toEqual(seen)
    expect(names(await list(`event_names=${encodeURIComponent('["$pageview"]')}&filter_by_event_names=true`))).toEqual([
      '$current_url',
      '$ip',
      '$lib',
      '$lib_version',
      'flip',
    ])

    expect(names(await list('is_numerical=true'))).toEqual(['flip', 'price'])
    expect(names(await list('search=RE'))).toEqual(['$current_url', 'renews_on'])
    expect(names(await list('search=lib%20VER'))).toEqual(['$lib_version'])
    expect(names(await list('properties=plan,price,nothing'))).toEqual(['plan', 'price'])
    expect(names(await list(`search=p&excluded_properties=${encodeURIComponent('["plan"]')}`))).toEqual([
      '$ip',
      'flip',
      'price',
      'utm_campaign',
    ])

    const page = await list('limit=3&offset=3')
    expect(page.count).toBe(11)
    expect(page.results).toHaveLength(3)
    expect(new URL(page.next).searchParams.get('offset')).toBe('6')
    expect(new URL(page.previous).searchParams.get('offset')).toBe('0')
  })

  it("leaves out PostHog's own event properties with exclude_core_properties, as PostHog does", async () => {
    const all = await call('GET', `${project}/property_definitions/?limit=1000`)
    expect(names(all.body)).toEqual(expect.arrayContaining(['$lib', '$lib_version', '$current_url', 'utm_campaign', 'plan']))
    const custom = await call('GET', `${project}/property_definitions/?limit=1000&exclude_core_properties=true`)
    expect(custom.status, custom.text).toBe(200)
    // Every '$' name and the taxonomy's others (utm_campaign) are PostHog's; what the app sent is left.
    expect(names(custom.body).sort()).toEqual(['flip', 'is_trial', 'note', 'plan', 'price', 'renews_on'])
    expect(custom.body.count).toBe(6)
    // Person properties are not event properties: the parameter leaves them as they are.
    const people = await call('GET', `${project}/property_definitions/?type=person&exclude_core_properties=true`)
    expect(names(people.body)).toEqual(expect.arrayContaining(['email', 'first_plan']))
  })

  it('refuses parameters PostHog refuses, naming them', async () => {
    const refused = async (query: string, attr: string) => {
      const res = await call('GET', `${project}/property_definitions/?${query}`)
      expect(res.status, query).toBe(400)
      expect(res.body, query).toMatchObject({ type: 'validation_error', attr })
    }
    await refused('type=group', 'group_type_index')
    await refused('type=person&group_type_index=0', 'group_type_index')
    await refused(`type=person&event_names=${encodeURIComponent('["x"]')}`, 'event_names')
    await refused('event_names=signed_up', 'event_names')
    await refused('excluded_properties=%7B%7D', 'excluded_properties')
    await refused('type=people', 'type')
  })

  it('answers only keys holding the scope, for their own project, and keeps other projects apart', async () => {
    const eventsOnly = await createKey(t, ['event_definition:read'])
    const propertiesOnly = await createKey(t, ['property_definition:read'])
    expect((await call('GET', `${project}/event_definitions/`, undefined, eventsOnly.value)).status).toBe(200)
    expect((await call('GET', `${project}/property_definitions/`, undefined, eventsOnly.value)).status).toBe(403)
    expect((await call('GET', `${project}/property_definitions/`, undefined, propertiesOnly.value)).status).toBe(200)
    const refused = await call('GET', `${project}/event_definitions/`, undefined, propertiesOnly.value)
    expect(refused.status).toBe(403)
    expect(refused.text).not.toContain('signed_up')

    const other = await createProject(t, 'Definitions elsewhere')
    await captureBatch({ url: t.url, projectKey: other.api_token }, [ev('other_event', 'o1', { other_prop: 1 })])
    await drained(t.wren)
    const otherEvents = await call('GET', `/api/projects/${other.id}/event_definitions/`)
    expect(names(otherEvents.body)).toEqual(['other_event'])
    expect(names((await call('GET', `/api/projects/${other.id}/property_definitions/`)).body)).toEqual([
      '$ip',
      '$lib',
      '$lib_version',
      'other_prop',
    ])
    expect(names((await call('GET', `${project}/event_definitions/`)).body)).not.toContain('other_event')
    const elsewhere = await createKey(t, ['*'], [other.id])
    expect((await call('GET', `${project}/event_definitions/`, undefined, elsewhere.value)).status).toBe(403)
  })
})
