// The person rules, run the way they run in production: each run() is one batch through the real
// processor loop (testing/processor-harness.ts) on the fake person store, and what a test reads is what the
// store holds. A few tests call the rules directly, for what the loop does not show.
import { describe, expect, it } from 'vitest'
import { PersonRepo } from './repo'
import { applyCommand, isDistinctIdIllegal, isDroppedPersonlessEvent, lookupsFor, PERSONLESS_CREATED_AT, processEvent } from './rules'
import type { FakePersonStore } from '../testing/fake-person-store'
import { ev, ingestion, type Item, type Run } from '../testing/processor-harness'
import type { ProcessorOptions } from '../processor'
import { personUuid } from './uuid'
import type { PersonCommand, ProcessedEvent } from '../types'

const T = 1
const pu = (id: string, team = T) => personUuid(team, id)

function setup(processor: Partial<ProcessorOptions> = {}) {
  const h = ingestion({ processor })
  const store = h.store
  const run = (...items: Item[]) => h.run(...items)
  const one = async (item: Item) => (await run(item)).outputs[0] as ProcessedEvent
  const person = (id: string) => {
    const row = store.row(T, id)
    return row && !row.isDeleted ? store.person(T, row.personUuid) : undefined
  }
  return { h, store, run, one, person, warnings: h.warnings }
}

/** The rules alone, over a repository loaded from the store the way the processor loads it. */
async function loadedRepo(store: FakePersonStore, items: Item[]): Promise<PersonRepo> {
  const repo = new PersonRepo()
  const wanted = repo.unknown({ ...lookupsFor(items), personIds: { partition: 0, partitions: 1 } })
  repo.load(wanted, await store.load(wanted, null))
  return repo
}

let commands = 0

function cmd(action: string, personUuidValue: string, extra: Record<string, unknown> = {}): PersonCommand {
  return {
    action,
    commandId: `c${++commands}`,
    teamId: T,
    personUuid: personUuidValue,
    at: '2024-02-01T00:00:00.000Z',
    ...extra,
  } as PersonCommand
}

describe('person creation', () => {
  it('creates a person for a new distinct id from $set_once then $set', async () => {
    const { store, run } = setup()
    const e = ev('u1', 'pageview', { $set: { name: 'Ann', both: 'set' }, $set_once: { first: 1, both: 'once' } }, 5)
    const { outputs, changes } = await run(e)
    const out = outputs[0] as ProcessedEvent
    const p = store.person(T, pu('u1'))!
    expect(p).toMatchObject({ id: 1, uuid: pu('u1'), version: 0, isIdentified: false, isDeleted: false, createdAt: e.timestamp })
    expect(p.properties).toEqual({ first: 1, both: 'set', name: 'Ann', $creator_event_uuid: e.uuid })
    expect(store.row(T, 'u1')).toEqual({ teamId: T, distinctId: 'u1', personUuid: pu('u1'), isDeleted: false, version: 0 })
    expect(out).toMatchObject({ personId: pu('u1'), personMode: 'full', personCreatedAt: e.timestamp, createdAt: e.now, distinctId: 'u1' })
    expect(out.personProperties).toEqual(p.properties)
    expect(changes.activity).toEqual([
      { teamId: T, personUuid: pu('u1'), activity: 'created', detail: { distinctIds: ['u1'] }, at: e.timestamp },
    ])
  })

  it('numbers persons in creation order, after the highest stored id', async () => {
    const { store, run } = setup()
    store.seed({
      persons: [{ teamId: T, id: 41, uuid: 'x', properties: {}, isIdentified: false, createdAt: '', version: 0, isDeleted: false }],
    })
    await run(ev('a', 'e'), ev('b', 'e'), ev('a', 'e'))
    expect(store.person(T, pu('a'))!.id).toBe(42)
    expect(store.person(T, pu('b'))!.id).toBe(43)
    await run(ev('c', 'e'))
    expect(store.person(T, pu('c'))!.id).toBe(44)
  })

  it('keeps teams apart, and never gives persons of two teams the same id', async () => {
    const { store, run } = setup()
    store.seed({
      persons: [{ teamId: 2, id: 7, uuid: 'x', properties: {}, isIdentified: false, createdAt: '', version: 0, isDeleted: false }],
    })
    await run(ev('a', 'e', {}, 0, 1), ev('a', 'e', {}, 0, 2))
    expect(store.person(1, pu('a', 1))!.id).toBe(8)
    expect(store.person(2, pu('a', 2))!.id).toBe(9)
    expect(pu('a', 1)).not.toBe(pu('a', 2))
  })

  it('re-creates a deleted person under its uuid, continuing the version', async () => {
    const { store, run } = setup()
    await run(ev('u1', 'e', { $set: { a: 1 } }))
    await run(ev('u1', '$set', { $set: { a: 2 } }))
    expect(await applyDelete(run, pu('u1'))).toEqual({ ok: true, person: null })
    expect(store.person(T, pu('u1'))).toMatchObject({ isDeleted: true, version: 2 })
    expect(store.row(T, 'u1')).toMatchObject({ isDeleted: true, version: 1 })
    const e = ev('u1', 'e', { $set: { b: 1 } }, 9)
    await run(e)
    expect(store.person(T, pu('u1'))).toMatchObject({ isDeleted: false, version: 3, id: 2, createdAt: e.timestamp })
    expect(store.person(T, pu('u1'))!.properties).toEqual({ b: 1, $creator_event_uuid: e.uuid })
    expect(store.row(T, 'u1')).toEqual({ teamId: T, distinctId: 'u1', personUuid: pu('u1'), isDeleted: false, version: 2 })
  })
})

async function applyDelete(run: (...items: Item[]) => Promise<Run>, uuid: string) {
  return (await run(cmd('delete', uuid))).outputs[0]
}

describe('$set / $set_once / $unset', () => {
  it('applies $set_once (missing keys only), then $set, then $unset of keys the person had', async () => {
    const { run, person } = setup()
    await run(ev('u', 'e', { $set: { a: 1, keep: 'k', nul: null } }))
    await run(ev('u', 'e', { $set_once: { a: 2, b: 2, nul: 'x' }, $set: { b: 3, c: 3 }, $unset: ['a', 'missing'] }))
    expect(person('u')!.properties).toMatchObject({ keep: 'k', b: 3, c: 3, nul: null })
    expect(person('u')!.properties).not.toHaveProperty('a')
  })

  it('accepts $unset as an object and does not unset a key the same event adds', async () => {
    const { run, person } = setup()
    await run(ev('u', 'e', { $set: { a: 1, b: 1 } }))
    await run(ev('u', 'e', { $set: { c: 1 }, $unset: { a: true, c: true } }))
    expect(person('u')!.properties).toMatchObject({ b: 1, c: 1 })
    expect(person('u')!.properties).not.toHaveProperty('a')
  })

  it('writes only real changes, bumping the version once per write', async () => {
    const { run, person } = setup()
    await run(ev('u', 'e', { $set: { a: 1, o: { x: [1] } } }))
    const { changes } = await run(ev('u', 'e', { $set: { a: 1, o: { x: [1] } }, $set_once: { a: 5 } }))
    expect(changes.persons).toEqual([])
    await run(ev('u', 'e', { $set: { a: 2 } }))
    expect(person('u')).toMatchObject({ version: 1, properties: { a: 2 } })
  })

  it('never updates persons from $exception or $$heatmap', async () => {
    const { run, person } = setup()
    await run(ev('u', 'e', { $set: { a: 1 } }))
    const { changes } = await run(ev('u', '$exception', { $set: { a: 2 } }), ev('u', '$$heatmap', { $unset: ['a'] }))
    expect(changes.persons).toEqual([])
    expect(person('u')!.properties.a).toBe(1)
  })

  it('records meaningful changes as activity', async () => {
    const { run } = setup()
    await run(ev('u', 'e', { $set: { plan: 'free', $browser: 'Chrome' } }))
    const { changes } = await run(ev('u', 'e', { $set: { plan: 'pro', $browser: 'Firefox' }, $unset: ['gone'] }, 3))
    expect(changes.activity).toEqual([
      {
        teamId: T,
        personUuid: pu('u'),
        activity: 'updated',
        detail: { changes: [{ field: 'plan', before: 'free', after: 'pro' }] },
        at: ev('x', 'x', {}, 3).timestamp,
      },
    ])
  })
})

describe('filtered properties', () => {
  it('does not write a change made only of filtered keys the person already has, but the event shows it', async () => {
    const { run, person } = setup()
    await run(ev('u', 'pageview', { $current_url: 'https://a', $browser: 'Chrome' }))
    const before = person('u')!
    const { outputs, changes } = await run(ev('u', 'pageview', { $current_url: 'https://b', $browser: 'Firefox' }))
    expect(changes.persons).toEqual([])
    expect(person('u')!.properties).toEqual(before.properties)
    expect((outputs[0] as ProcessedEvent).personProperties).toMatchObject({
      $current_url: 'https://b',
      $browser: 'Firefox',
      $initial_current_url: 'https://a',
    })
  })

  it('writes filtered keys along with a non-filtered change, or when the key is new, or on person events', async () => {
    const { run, person } = setup()
    await run(ev('u', 'pageview', { $current_url: 'https://a' }))
    await run(ev('u', 'pageview', { $current_url: 'https://b', $set: { plan: 'pro' } }))
    expect(person('u')!.properties).toMatchObject({ $current_url: 'https://b', plan: 'pro' })
    await run(ev('u', 'pageview', { $current_url: 'https://b', $pathname: '/new' }))
    expect(person('u')!.properties.$pathname).toBe('/new')
    await run(ev('u', '$set', { $current_url: 'https://c' }))
    expect(person('u')!.properties.$current_url).toBe('https://c')
    await run(ev('u', '$identify', { $current_url: 'https://d' }))
    expect(person('u')!.properties.$current_url).toBe('https://d')
  })

  it('treats geoip country and city as meaningful, other geoip keys as filtered', async () => {
    const { run, person } = setup()
    await run(ev('u', 'e', { $set: { $geoip_city_name: 'Oslo', $geoip_time_zone: 'Europe/Oslo' } }))
    await run(ev('u', 'e', { $set: { $geoip_time_zone: 'Europe/Paris' } }))
    expect(person('u')!.properties.$geoip_time_zone).toBe('Europe/Oslo')
    await run(ev('u', 'e', { $set: { $geoip_city_name: 'Paris' } }))
    expect(person('u')!.properties.$geoip_city_name).toBe('Paris')
  })
})

describe('automatic person properties', () => {
  it('copies known event properties to $set and $initial_* to $set_once; explicit SDK values win', async () => {
    const { one } = setup()
    const out = await one(
      ev('u', 'pageview', {
        $browser: 'Chrome',
        utm_source: 'news',
        gclid: null,
        $app_version: '2',
        $set: { $browser: 'Own' },
        $set_once: { $initial_browser: 'OwnFirst' },
      }),
    )
    expect(out.properties.$set).toEqual({ $browser: 'Own', utm_source: 'news', gclid: null, $app_version: '2' })
    expect(out.properties.$set_once).toEqual({ $initial_browser: 'OwnFirst', $initial_utm_source: 'news', $initial_app_version: '2' })
    expect(out.personProperties).toMatchObject({ $browser: 'Own', $initial_browser: 'OwnFirst', gclid: null, $initial_utm_source: 'news' })
    expect(out.personProperties).not.toHaveProperty('$initial_gclid')
  })

  it('a null first touch does not block the real one', async () => {
    const { run, person } = setup()
    await run(ev('u', 'pageview', { gclid: null }))
    await run(ev('u', 'pageview', { gclid: 'g1' }))
    await run(ev('u', 'pageview', { gclid: 'g2' }))
    expect(person('u')!.properties).toMatchObject({ gclid: 'g2', $initial_gclid: 'g1' })
  })

  it('uses $os_name only as a fallback for $initial_os and keeps it off the person', async () => {
    const { one } = setup()
    const a = await one(ev('a', 'e', { $os_name: 'iOS' }))
    expect(a.properties.$set).toEqual({})
    expect(a.properties.$set_once).toEqual({ $initial_os: 'iOS' })
    const b = await one(ev('b', 'e', { $os: 'Android', $os_name: 'iOS' }))
    expect(b.properties.$set).toEqual({ $os: 'Android' })
    expect(b.properties.$set_once).toEqual({ $initial_os: 'Android' })
  })

  it('skips $os / $os_version of server SDKs, and adds nothing to $snapshot / $performance_event', async () => {
    const { one } = setup()
    const s = await one(ev('a', 'e', { $is_server: true, $os: 'Linux', $os_version: '6', $browser: 'x' }))
    expect(s.properties.$set).toEqual({ $browser: 'x' })
    expect(s.properties.$set_once).toEqual({ $initial_browser: 'x' })
    expect((await one(ev('b', '$snapshot', { $browser: 'x' }))).properties).not.toHaveProperty('$set')
    expect((await one(ev('c', '$performance_event', { $browser: 'x' }))).properties).not.toHaveProperty('$set_once')
  })

  it('sets $survey_last_seen_date on survey shown', async () => {
    const { run, person } = setup()
    await run(ev('u', 'pageview'))
    const e = ev('u', 'survey shown', {}, 30)
    await run(e)
    expect(person('u')!.properties.$survey_last_seen_date).toBe(e.timestamp)
  })
})

describe('$process_person_profile: false', () => {
  it('creates and updates nothing and strips person fields', async () => {
    const { one, store, run } = setup()
    const e = ev('anon', 'pageview', {
      $process_person_profile: false,
      $set: { a: 1 },
      $set_once: { b: 1 },
      $unset: ['c'],
      $browser: 'x',
      $groups: { company: 'acme' },
    })
    const out = await one(e)
    expect(out).toMatchObject({
      personId: pu('anon'),
      personProperties: {},
      personMode: 'propertyless',
      personCreatedAt: PERSONLESS_CREATED_AT,
    })
    expect(out.properties).toEqual({ $process_person_profile: false, $browser: 'x', $groups: { company: 'acme' } })
    expect(out.groupProperties).toEqual([{}, {}, {}, {}, {}])
    expect(store.persons()).toHaveLength(0)
    expect(store.groupTypes()).toEqual([])
    expect((await run(ev('anon', 'x', { $process_person_profile: false }))).changes).toEqual({
      persons: [],
      distinctIds: [],
      activity: [],
      groups: [],
      groupTypes: [],
    })
  })

  it('attaches to an existing person as force_upgrade, without changing it', async () => {
    const { one, run, person } = setup()
    await run(ev('u', 'e', { $set: { a: 1 } }))
    const out = await one(ev('u', 'e', { $process_person_profile: false, $set: { a: 2 } }))
    expect(out).toMatchObject({
      personId: pu('u'),
      personMode: 'force_upgrade',
      personProperties: person('u')!.properties,
      personCreatedAt: person('u')!.createdAt,
    })
    expect(person('u')!.properties.a).toBe(1)
  })

  it('flags person-only events PostHog drops, and removes a true flag from properties', async () => {
    const { store, one, warnings } = setup()
    expect(isDroppedPersonlessEvent(ev('u', '$identify', { $process_person_profile: false }))).toBe(true)
    expect(isDroppedPersonlessEvent(ev('u', 'pageview', { $process_person_profile: false }))).toBe(false)
    const dropped = ev('u', '$identify', { $process_person_profile: false, $anon_distinct_id: 'a' })
    expect(await one(dropped)).toBeUndefined() // the processor drops it, and says so
    expect(warnings().map((w) => w.type)).toEqual(['invalid_event_when_process_person_profile_is_false'])
    // The rules, asked anyway, store it as a personless event and warn.
    const repo = await loadedRepo(store, [dropped])
    processEvent(repo, dropped)
    expect(repo.takeWarnings().map((w) => w.type)).toEqual(['invalid_event_when_process_person_profile_is_false'])
    expect((await one(ev('u', 'e', { $process_person_profile: true }))).properties).not.toHaveProperty('$process_person_profile')
  })
})

describe('identify, alias, merge', () => {
  it('case 1: only the anonymous id has a person — the user id joins it', async () => {
    const { run, store, person } = setup()
    await run(ev('anon', 'pageview', { $set: { a: 1 } }))
    const { outputs } = await run(ev('user', '$identify', { $anon_distinct_id: 'anon', $set: { email: 'x@y' } }))
    const p = person('user')!
    expect(p.uuid).toBe(pu('anon'))
    expect(p).toMatchObject({ isIdentified: true, version: 1, properties: { a: 1, email: 'x@y' } })
    expect(store.idsOf(T, pu('anon'))).toEqual(['anon', 'user'])
    expect(store.row(T, 'user')!.version).toBe(1) // an override row: old events of "user" move to this person
    expect((outputs[0] as ProcessedEvent).personId).toBe(pu('anon'))
  })

  it('case 1: only the user id has a person — the anonymous id joins it', async () => {
    const { run, store, person } = setup()
    await run(ev('user', 'e'))
    await run(ev('user', '$identify', { $anon_distinct_id: 'anon' }))
    expect(person('anon')!.uuid).toBe(pu('user'))
    expect(person('anon')!.isIdentified).toBe(true)
    expect(store.idsOf(T, pu('user'))).toEqual(['anon', 'user'])
  })

  it('case 2: neither has a person — one identified person with both ids, named after the distinct id', async () => {
    const { run, store, person } = setup()
    const e = ev('user', '$identify', { $anon_distinct_id: 'anon', $set: { email: 'x@y' }, $set_once: { f: 1 } })
    const { changes } = await run(e)
    const p = person('anon')!
    expect(p).toMatchObject({ uuid: pu('user'), id: 1, isIdentified: true, version: 0, createdAt: e.timestamp })
    expect(p.properties).toEqual({ f: 1, email: 'x@y', $creator_event_uuid: e.uuid })
    expect(store.row(T, 'user')!.version).toBe(0)
    expect(store.row(T, 'anon')!.version).toBe(1)
    expect(changes.activity.map((a) => a.activity)).toEqual(['created'])
  })

  it('case 3: merges the anonymous person into the identified one', async () => {
    const { run, store, person } = setup()
    await run(ev('anon', 'e', { $set: { shared: 'anon', onlyAnon: 1 } }, 1), ev('user', 'e', { $set: { shared: 'user' } }, 10))
    await run(ev('anon', '$set', { $set: { v: 2 } }, 2))
    const source = store.person(T, pu('anon'))!
    const target = store.person(T, pu('user'))!
    expect([source.version, target.version]).toEqual([1, 0])
    const { changes, outputs } = await run(ev('user', '$identify', { $anon_distinct_id: 'anon', $set: { fromEvent: 1 } }, 20))
    const merged = person('anon')!
    expect(merged.uuid).toBe(pu('user'))
    expect(merged.properties).toEqual({
      shared: 'user',
      onlyAnon: 1,
      v: 2,
      fromEvent: 1,
      $creator_event_uuid: target.properties.$creator_event_uuid,
    })
    expect(merged).toMatchObject({ createdAt: source.createdAt, version: 2, isIdentified: true, id: target.id })
    expect(store.person(T, pu('anon'))).toMatchObject({ isDeleted: true, version: 2 })
    expect(store.row(T, 'anon')).toMatchObject({ personUuid: pu('user'), version: 1 })
    expect(store.idsOf(T, pu('user'))).toEqual(['anon', 'user'])
    expect((outputs[0] as ProcessedEvent).personProperties).toEqual(merged.properties)
    expect(changes.activity).toEqual([
      expect.objectContaining({
        activity: 'merged',
        personUuid: pu('user'),
        detail: expect.objectContaining({ merge: { source: pu('anon'), distinctIds: ['anon'] } }),
      }),
    ])
  })

  it('case 3: the target wins on conflicts and every distinct id of the source moves', async () => {
    const { run, store, person } = setup()
    await run(ev('a1', 'e', { $set: { k: 'source', s: 1 } }), ev('t', 'e', { $set: { k: 'target' } }))
    await run(ev('a1', '$create_alias', { alias: 'a2' })) // a2 joins a1's person (not identified? it becomes identified)
    // make the source anonymous again is impossible, so use $merge_dangerously for the multi-id move
    await run(ev('t', '$merge_dangerously', { alias: 'a1' }))
    expect(person('a1')!.uuid).toBe(pu('t'))
    expect(person('a2')!.uuid).toBe(pu('t'))
    expect(person('t')!.properties).toMatchObject({ k: 'target', s: 1 })
    expect(store.idsOf(T, pu('t'))).toEqual(['a1', 'a2', 't'])
    expect(store.row(T, 'a1')!.version).toBe(1)
    expect(store.row(T, 'a2')!.version).toBe(2)
  })

  it('refuses to merge an identified source with $identify / $create_alias, but the target becomes identified', async () => {
    const { warnings, run, person } = setup()
    await run(ev('src', '$identify', { $anon_distinct_id: 'x' })) // src identified
    await run(ev('dst', 'e'))
    for (const [name, props] of [
      ['$identify', { $anon_distinct_id: 'src' }],
      ['$create_alias', { alias: 'src' }],
    ] as const) {
      warnings()
      await run(ev('dst', name, props))
      expect(person('src')!.uuid).toBe(pu('src'))
      expect(person('dst')!.uuid).toBe(pu('dst'))
      expect(person('dst')!.isIdentified).toBe(true)
      expect(warnings().map((w) => w.type)).toEqual(['cannot_merge_already_identified'])
    }
  })

  it('merges a non-identified source even when the target is identified', async () => {
    const { run, person } = setup()
    await run(ev('dst', '$identify', { $anon_distinct_id: 'y' }))
    await run(ev('anon', 'e'))
    await run(ev('dst', '$identify', { $anon_distinct_id: 'anon' }))
    expect(person('anon')!.uuid).toBe(pu('dst'))
  })

  it('$merge_dangerously merges an identified source', async () => {
    const { run, store, person } = setup()
    await run(ev('src', '$identify', { $anon_distinct_id: 'x' }))
    await run(ev('dst', 'e'))
    await run(ev('dst', '$merge_dangerously', { alias: 'src' }))
    expect(person('src')!.uuid).toBe(pu('dst'))
    expect(store.idsOf(T, pu('dst'))).toEqual(['dst', 'src', 'x'])
    expect(store.person(T, pu('src'))!.isDeleted).toBe(true)
  })

  it('$create_alias merges the alias into the distinct id', async () => {
    const { run, person } = setup()
    await run(ev('old', 'e', { $set: { a: 1 } }), ev('new', 'e'))
    await run(ev('new', '$create_alias', { alias: 'old' }))
    expect(person('old')!.uuid).toBe(pu('new'))
    expect(person('new')!.properties.a).toBe(1)
  })

  it('does nothing for equal ids, and $identify without $anon_distinct_id is a plain event', async () => {
    const { run, person } = setup()
    await run(ev('u', '$identify', { $anon_distinct_id: 'u' }))
    expect(person('u')!.isIdentified).toBe(false)
    await run(ev('v', '$identify', {}))
    expect(person('v')!.isIdentified).toBe(false)
    await run(ev('w', '$create_alias', { alias: '' }))
    expect(person('w')!.isIdentified).toBe(false)
  })

  const illegal = [
    'anonymous',
    'ANONYMOUS',
    'Guest',
    'distinctid',
    'DistinctId',
    'distinct_id',
    'id',
    'ID',
    'not_authenticated',
    'email',
    'Email',
    'undefined',
    'UNDEFINED',
    'true',
    'True',
    'false',
    'FALSE',
    '"guest"',
    "'Guest'",
    '"ID"',
    "'email'",
    '[object Object]',
    'NaN',
    'None',
    'none',
    'null',
    '0',
    '"null"',
    "'NaN'",
    "'0'",
    '"[object Object]"',
    '',
    ' ',
    '\t\n',
  ]
  it.each(illegal)('refuses to merge with illegal id %j in either position', async (bad) => {
    const { warnings, run, person, store } = setup()
    await run(ev('user', '$identify', { $anon_distinct_id: bad }))
    expect(person('user')!.isIdentified).toBe(false)
    expect(store.row(T, bad)).toBeUndefined()
    expect(warnings().map((w) => w.type)).toEqual(['cannot_merge_with_illegal_distinct_id'])
    await run(ev('anon', '$create_alias', { alias: bad }))
    expect(person('anon')!.isIdentified).toBe(false)
    expect(warnings().map((w) => w.type)).toEqual(bad === '' ? [] : ['cannot_merge_with_illegal_distinct_id']) // '' is no alias at all
    if (bad.trim() !== '') {
      await run(ev(bad, '$identify', { $anon_distinct_id: 'anon' }))
      expect(person('anon')!.uuid).toBe(pu('anon'))
      expect(person(bad)!.uuid).toBe(pu(bad)) // a plain person, like PostHog
      expect(warnings().map((w) => w.type)).toEqual(['cannot_merge_with_illegal_distinct_id'])
    }
  })

  it('allows ids that only look like illegal ones', async () => {
    for (const ok of ['nan', 'NULL', 'Null', 'NONE', '00', 'guest1', '"nan"', 'anonymous ', "'none'x"])
      expect(isDistinctIdIllegal(ok)).toBe(false)
    const { run, person } = setup()
    await run(ev('user', '$identify', { $anon_distinct_id: 'nan' }))
    expect(person('nan')!.uuid).toBe(pu('user'))
  })

  it('a split after a merge re-creates the merged-away person with a winning version', async () => {
    const { run, store } = setup()
    await run(ev('anon', 'e'), ev('user', 'e'))
    for (let i = 0; i < 5; i++) await run(ev('anon', '$set', { $set: { i } })) // anon's person reaches version 5
    await run(ev('user', '$identify', { $anon_distinct_id: 'anon' }))
    const deleted = store.person(T, pu('anon'))!
    expect(deleted).toMatchObject({ isDeleted: true, version: 6 })
    await run(cmd('split', pu('user'), { mainDistinctId: 'user' }))
    const revived = store.person(T, pu('anon'))!
    expect(revived.isDeleted).toBe(false)
    expect(revived.version).toBeGreaterThan(deleted.version)
    expect(store.row(T, 'anon')!.personUuid).toBe(pu('anon'))
  })
})

describe('groups', () => {
  it('assigns group type indices on first sight and adds $group_<index>', async () => {
    const { one, store } = setup()
    const out = await one(ev('u', 'e', { $groups: { company: 'acme', project: 42 } }))
    expect(out.properties).toMatchObject({ $group_0: 'acme', $group_1: 42 })
    expect(store.groupTypes()).toEqual([
      { teamId: T, groupType: 'company', groupTypeIndex: 0 },
      { teamId: T, groupType: 'project', groupTypeIndex: 1 },
    ])
    const again = await one(ev('u', 'e', { $groups: { project: 'p', company: 'c' } }))
    expect(again.properties).toMatchObject({ $group_0: 'c', $group_1: 'p' })
    expect(store.groupTypes()).toHaveLength(2)
  })

  it('allows at most five group types per team', async () => {
    const { one, store } = setup()
    const out = await one(ev('u', 'e', { $groups: { a: '1', b: '2', c: '3', d: '4', e: '5', f: '6' } }))
    expect(store.groupTypes().map((g) => g.groupType)).toEqual(['a', 'b', 'c', 'd', 'e'])
    expect(out.properties).toMatchObject({ $group_4: '5' })
    expect(Object.values(out.properties)).not.toContain('6')
  })

  it('$groupidentify upserts the group, leaves person properties alone, and events carry group properties', async () => {
    const { run, one, store, person } = setup()
    await run(ev('u', 'e', { $set: { a: 1 } }))
    const gi = ev(
      'u',
      '$groupidentify',
      { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme', size: 5 }, $set: { a: 2 }, $unset: ['a'] },
      7,
    )
    const first = await one(gi)
    expect(first.personId).toBe(pu('u'))
    expect(first.properties).not.toHaveProperty('$set')
    expect(person('u')!.properties.a).toBe(1)
    expect(store.groups()).toEqual([
      { teamId: T, groupTypeIndex: 0, groupKey: 'acme', properties: { name: 'Acme', size: 5 }, createdAt: gi.timestamp, version: 1 },
    ])
    const { changes } = await run(ev('u', '$groupidentify', { $group_type: 'company', $group_key: 'acme', $group_set: { size: 5 } }, 3))
    expect(changes.groups).toEqual([])
    await run(ev('u', '$groupidentify', { $group_type: 'company', $group_key: 'acme', $group_set: { size: 6 } }, 3))
    const g = store.groups()[0]
    expect(g).toMatchObject({ properties: { name: 'Acme', size: 6 }, version: 2, createdAt: ev('x', 'x', {}, 3).timestamp })
    const out = await one(ev('u', 'pageview', { $groups: { company: 'acme', other: 'zzz' } }))
    expect(out.groupProperties).toEqual([{ name: 'Acme', size: 6 }, {}, {}, {}, {}])
  })

  it('sees a group created earlier in the same batch', async () => {
    const { run } = setup()
    const { outputs } = await run(
      ev('u', '$groupidentify', { $group_type: 'org', $group_key: 'o1', $group_set: { n: 1 }, $groups: { org: 'o1' } }),
      ev('u', 'e', { $groups: { org: 'o1' } }),
    )
    expect((outputs[0] as ProcessedEvent).groupProperties[0]).toEqual({ n: 1 })
    expect((outputs[1] as ProcessedEvent).groupProperties[0]).toEqual({ n: 1 })
  })
})

describe('commands', () => {
  it('update_properties merges keys and records the changes', async () => {
    const { run, store } = setup()
    await run(ev('u', 'e', { $set: { a: 1, b: 1 } }))
    const { outputs, changes } = await run(cmd('update_properties', pu('u'), { set: { b: 2, c: 3 } }))
    const p = store.person(T, pu('u'))!
    expect(p.properties).toMatchObject({ a: 1, b: 2, c: 3 })
    expect(p.version).toBe(1)
    expect(outputs[0]).toEqual({ ok: true, person: p })
    expect(changes.activity).toEqual([
      {
        teamId: T,
        personUuid: pu('u'),
        activity: 'updated',
        detail: {
          changes: [
            { field: 'b', before: 1, after: 2 },
            { field: 'c', before: null, after: 3 },
          ],
        },
        at: '2024-02-01T00:00:00.000Z',
      },
    ])
  })

  it('delete_property removes one key', async () => {
    const { run, store } = setup()
    await run(ev('u', 'e', { $set: { a: 1, b: 1 } }))
    await run(cmd('delete_property', pu('u'), { key: 'a' }))
    expect(store.person(T, pu('u'))!.properties).not.toHaveProperty('a')
    expect(store.person(T, pu('u'))!.properties.b).toBe(1)
    const { changes } = await run(cmd('delete_property', pu('u'), { key: 'a' }))
    expect(changes.persons).toEqual([])
  })

  it('split without a main id: the first id stays, properties cleared, the others get persons of their own', async () => {
    const { run, store } = setup()
    await run(ev('u', 'e', { $set: { a: 1 } }))
    await run(ev('u', '$identify', { $anon_distinct_id: 'b-anon' }), ev('u', '$create_alias', { alias: 'a-alias' }))
    const before = store.person(T, pu('u'))!
    const { outputs, changes } = await run(cmd('split', pu('u')))
    expect(store.person(T, pu('u'))).toMatchObject({ properties: {}, version: before.version + 1 })
    expect(store.idsOf(T, pu('u'))).toEqual(['u'])
    for (const id of ['a-alias', 'b-anon']) {
      expect(store.person(T, pu(id))).toMatchObject({
        properties: {},
        isIdentified: false,
        isDeleted: false,
        createdAt: '2024-02-01T00:00:00.000Z',
      })
      expect(store.row(T, id)).toMatchObject({ personUuid: pu(id), version: 2 })
    }
    expect(new Set([store.person(T, pu('a-alias'))!.id, store.person(T, pu('b-anon'))!.id])).toEqual(new Set([2, 3]))
    expect(outputs[0]).toMatchObject({ ok: true, person: { uuid: pu('u'), properties: {} } })
    expect(changes.activity).toContainEqual(
      expect.objectContaining({
        activity: 'split',
        personUuid: pu('u'),
        detail: {
          split: {
            mainDistinctId: 'u',
            persons: [
              { uuid: pu('a-alias'), distinctId: 'a-alias' },
              { uuid: pu('b-anon'), distinctId: 'b-anon' },
            ],
          },
        },
      }),
    )
  })

  it('split with a main id keeps the properties and that id', async () => {
    const { run, store } = setup()
    await run(ev('u', '$identify', { $anon_distinct_id: 'anon', $set: { a: 1 } }))
    await run(cmd('split', pu('u'), { mainDistinctId: 'anon' }))
    // "u" maps to its own uuid, which is the original person: it stays
    expect(store.idsOf(T, pu('u'))).toEqual(['anon', 'u'])
    expect(store.person(T, pu('u'))!.properties.a).toBe(1)
    await run(ev('x', 'e'), ev('y', 'e'))
    await run(ev('x', '$identify', { $anon_distinct_id: 'y' }))
    await run(cmd('split', pu('x'), { mainDistinctId: 'x' }))
    expect(store.idsOf(T, pu('x'))).toEqual(['x'])
    expect(store.idsOf(T, pu('y'))).toEqual(['y'])
    expect((await run(cmd('split', pu('x'), { mainDistinctId: 'nope' }))).outputs[0]).toMatchObject({ ok: false, status: 400 })
  })

  it('delete tombstones the person and its distinct ids', async () => {
    const { run, store } = setup()
    await run(ev('u', '$identify', { $anon_distinct_id: 'anon' }))
    const { changes } = await run(cmd('delete', pu('u')))
    expect(store.person(T, pu('u'))).toMatchObject({ isDeleted: true, version: 1 })
    expect(store.row(T, 'u')).toMatchObject({ isDeleted: true, version: 1 })
    expect(store.row(T, 'anon')).toMatchObject({ isDeleted: true, version: 2 })
    expect(changes.activity).toEqual([
      { teamId: T, personUuid: pu('u'), activity: 'deleted', detail: { distinctIds: ['u', 'anon'] }, at: '2024-02-01T00:00:00.000Z' },
    ])
  })

  it('answers 404 for unknown, deleted or malformed person uuids', async () => {
    const { run } = setup()
    await run(ev('u', 'e'))
    await run(cmd('delete', pu('u')))
    for (const uuid of [pu('u'), pu('never'), 'not-a-uuid']) {
      for (const action of ['update_properties', 'delete_property', 'split', 'delete']) {
        expect((await run(cmd(action, uuid, { set: {}, key: 'k' }))).outputs[0]).toMatchObject({ ok: false, status: 404 })
      }
    }
  })

  it('accepts an upper-case uuid', async () => {
    const { run, store } = setup()
    await run(ev('u', 'e'))
    expect((await run(cmd('update_properties', pu('u').toUpperCase(), { set: { a: 1 } }))).outputs[0]).toMatchObject({ ok: true })
    expect(store.person(T, pu('u'))!.properties.a).toBe(1)
  })
})

describe('determinism and loading', () => {
  const scenario = (): Item[] => [
    ev('anon', 'pageview', { $browser: 'Chrome', $current_url: 'https://a', utm_source: 'x' }, 1),
    ev('anon', 'pageview', { $current_url: 'https://b', $groups: { company: 'acme' } }, 2),
    ev('user', '$identify', { $anon_distinct_id: 'anon', $set: { email: 'e@x' } }, 3),
    ev('other', 'signup', { $set_once: { first: true } }, 4),
    ev('user', '$groupidentify', { $group_type: 'company', $group_key: 'acme', $group_set: { plan: 'pro' } }, 5),
    ev('user', '$merge_dangerously', { alias: 'other' }, 6),
    ev('ghost', 'pageview', { $process_person_profile: false }, 7),
    cmd('update_properties', pu('anon'), { set: { vip: true } }),
    cmd('split', pu('anon')),
    ev('other', 'pageview', {}, 8),
    cmd('delete', pu('other')),
    ev('other', 'pageview', {}, 9),
  ]

  it('gives identical outputs for the same inputs from the same state', async () => {
    const items = scenario()
    const a = setup()
    const b = setup()
    await a.run(ev('seed', 'e', {}, 0))
    b.store.seed({ persons: a.store.persons(), distinctIds: a.store.distinctIds() })
    const { outputs, changes } = await a.run(...items)
    const rb = await b.run(...items)
    expect({ outputs: rb.outputs, changes: rb.changes }).toEqual({ outputs, changes })
    expect(b.store.persons()).toEqual(a.store.persons())
  })

  it('does not depend on batch boundaries or on what the cache holds', async () => {
    const items = scenario()
    const whole = setup()
    const wholeOut = (await whole.run(...items)).outputs
    const stored = (s: FakePersonStore) => [...s.persons(), ...s.distinctIds(), ...s.groups()].map((x) => JSON.stringify(x)).sort()

    // One item per batch, with a cache of one person.
    const tiny = setup({ maxCachedPersons: 1 })
    const tinyOut = []
    for (const item of items) tinyOut.push((await tiny.run(item)).outputs[0])
    expect(tinyOut).toEqual(wholeOut)
    expect(stored(tiny.store)).toEqual(stored(whole.store))

    // One item per batch, each handed out as after a rebalance: the cache is cleared before each.
    const cleared = setup()
    const clearedOut = []
    for (const item of items) {
      await cleared.h.append(item)
      clearedOut.push((await cleared.h.deliver([item], { reassigned: true })).outputs[0])
    }
    expect(clearedOut).toEqual(wholeOut)
    expect(stored(cleared.store)).toEqual(stored(whole.store))
  })

  it('leaves no trace of an item that fails', async () => {
    const { store, run } = setup()
    await run(ev('u', 'e', { $groups: { g: 'k' } }))
    const repo = await loadedRepo(store, [ev('u', 'e'), ev('fresh', 'e')])
    // Group (g, k2) was not loaded: the person work is done when the group lookup throws.
    expect(() => processEvent(repo, ev('u', 'e', { $set: { a: 1 }, $groups: { g: 'k2' } }))).toThrow(/not loaded/)
    expect(() => processEvent(repo, ev('fresh', 'e', { $set: { a: 1 }, $groups: { g: 'k2', h: 'x' } }))).toThrow(/not loaded/)
    expect(repo.takeChanges()).toEqual({ persons: [], distinctIds: [], activity: [], groups: [], groupTypes: [] })
    processEvent(repo, ev('fresh', 'e'))
    expect(repo.takeChanges().persons).toMatchObject([{ uuid: pu('fresh'), id: 2, version: 0 }])
  })

  it('asks for every id, derived uuid, team and group the items touch', async () => {
    const l = lookupsFor([
      ev('u', '$identify', { $anon_distinct_id: 'a', $groups: { org: 1 } }, 0, 2),
      ev('u', '$groupidentify', { $group_type: 'org', $group_key: 'k' }, 0, 2),
      ev('p', 'e', { $process_person_profile: false, $groups: { org: 'x' } }, 0, 3),
      cmd('delete', pu('z').toUpperCase()),
      cmd('delete', 'bad'),
    ])
    expect(l.teamIds).toEqual([2, 3, 1])
    expect(l.distinctIds).toEqual([
      { teamId: 2, distinctId: 'u' },
      { teamId: 2, distinctId: 'a' },
      { teamId: 3, distinctId: 'p' },
    ])
    expect(l.personUuids).toEqual([
      { teamId: 2, personUuid: pu('u', 2) },
      { teamId: 2, personUuid: pu('a', 2) },
      { teamId: 3, personUuid: pu('p', 3) },
      { teamId: 1, personUuid: pu('z') },
    ])
    expect(l.groups).toEqual([
      { teamId: 2, groupType: 'org', groupKey: '1' },
      { teamId: 2, groupType: 'org', groupKey: 'k' },
    ])
  })

  it('loads nothing twice', async () => {
    const { store, run } = setup()
    const items = [ev('u', '$identify', { $anon_distinct_id: 'a', $groups: { org: 'o' } }), ev('v', 'e'), cmd('delete', pu('nobody'))]
    await run(...items)
    // The same items again: the processor asks the store for nothing.
    await run(...items)
    expect(store.loads.at(-1)).toEqual({ teamIds: [], distinctIds: [], personUuids: [], groups: [] })
  })
})

it('applyCommand and processEvent are exported from persons/rules', async () => {
  expect(typeof applyCommand).toBe('function')
  expect(typeof processEvent).toBe('function')
})

describe('person properties size limit (PostHog: 640 KiB, refused with person_properties_size_violation)', () => {
  const big = 'x'.repeat(700 * 1024)

  it('refuses an update past the limit: the person keeps its properties and events carry the small ones', async () => {
    const { warnings, run, person } = setup()
    await run(ev('u', 'e', { $set: { plan: 'pro' } }))
    warnings()
    const { outputs } = await run(ev('u', '$set', { $set: { blob: big } }), ev('u', 'e', {}))
    expect(person('u')!.properties).toMatchObject({ plan: 'pro' })
    expect(person('u')!.properties).not.toHaveProperty('blob')
    for (const out of outputs as ProcessedEvent[]) expect(out.personProperties).not.toHaveProperty('blob')
    expect(warnings()).toEqual([
      { teamId: T, type: 'person_properties_size_violation', details: expect.objectContaining({ personId: pu('u') }) },
    ])
  })

  it('trims a new person past the limit, and one already past it, keeping protected keys', async () => {
    const { warnings, store, run, person } = setup()
    await run(ev('new', 'e', { $set: { email: 'a@x', a_blob: big, z: 1 } }))
    expect(person('new')!.properties).toMatchObject({ email: 'a@x', z: 1 })
    expect(person('new')!.properties).not.toHaveProperty('a_blob')
    // Stored before the limit existed: the next write trims it to 512 KiB.
    store.seed({
      persons: [
        {
          teamId: T,
          id: 9,
          uuid: pu('old'),
          properties: { name: big, b1: big, b2: big },
          isIdentified: false,
          createdAt: '',
          version: 0,
          isDeleted: false,
        },
      ],
      distinctIds: [{ teamId: T, distinctId: 'old', personUuid: pu('old'), isDeleted: false, version: 0 }],
    })
    await run(ev('old', '$set', { $set: { c: 1 } }))
    expect(Object.keys(person('old')!.properties)).toEqual(['name'])
    expect(warnings().map((w) => w.type)).toEqual(['person_properties_size_violation', 'person_properties_size_violation'])
  })
})
