import { describe, expect, it } from 'vitest'
import { PersonRepo, PersonStateNotLoadedError } from './repo'
import type { LoadedState, Lookups } from './store'
import { personUuid } from './uuid'
import type { DistinctIdRow, Person } from '../types'

const T = 1
const pu = (id: string) => personUuid(T, id)
const none: Lookups = { teamIds: [], distinctIds: [], personUuids: [], groups: [] }
const emptyState: LoadedState = { teams: [], distinctIds: [], persons: [], groups: [] }

function person(id: string, extra: Partial<Person> = {}): Person {
  return {
    teamId: T,
    id: 1,
    uuid: pu(id),
    properties: {},
    isIdentified: false,
    createdAt: '2024-01-01T00:00:00.000Z',
    version: 0,
    isDeleted: false,
    ...extra,
  }
}
function row(distinctId: string, owner: string, extra: Partial<DistinctIdRow> = {}): DistinctIdRow {
  return { teamId: T, distinctId, personUuid: owner, isDeleted: false, version: 0, ...extra }
}
const ask = (l: Partial<Lookups>): Lookups => ({ ...none, ...l })
/** The embedded log's one partition: ids 1, 2, 3, … */
const ONE = { partition: 0, partitions: 1 }

describe('personUuid', () => {
  it('is uuidv5 of "team:distinct id" in the PostHog namespace', () => {
    expect(personUuid(1, 'a')).toBe('84877a1c-03f2-5cfd-8633-cf112f0d565a')
    expect(personUuid(2, 'a')).not.toBe(personUuid(1, 'a'))
  })
})

describe('PersonRepo loading', () => {
  it('reports everything as unknown at first, nothing after a load (found or known absent)', () => {
    const repo = new PersonRepo()
    const wanted = ask({
      teamIds: [T],
      distinctIds: [
        { teamId: T, distinctId: 'a' },
        { teamId: T, distinctId: 'missing' },
      ],
      personUuids: [{ teamId: T, personUuid: pu('nobody') }],
      groups: [{ teamId: T, groupType: 'org', groupKey: 'k' }],
      personIds: ONE,
    })
    expect(repo.unknown(wanted)).toEqual(wanted)
    repo.load(wanted, {
      teams: [{ teamId: T, groupTypes: [{ teamId: T, groupType: 'org', groupTypeIndex: 0 }] }],
      distinctIds: [row('a', pu('a'))],
      persons: [person('a')],
      groups: [],
      nextPersonId: 8,
    })
    expect(repo.unknown(wanted)).toEqual(none)
    expect(repo.personForDistinctId(T, 'a')!.uuid).toBe(pu('a'))
    expect(repo.distinctIdRow(T, 'missing')).toBeNull()
    expect(repo.person(T, pu('nobody'))).toBeNull()
    expect(repo.group(T, 0, 'k')).toBeNull()
    expect(repo.allocatePersonId()).toBe(8)
    expect(repo.allocatePersonId()).toBe(9)
  })

  it('starts an id space with no stored ids at its first id', () => {
    const repo = new PersonRepo()
    repo.load(ask({ teamIds: [5], personIds: ONE }), emptyState)
    expect(repo.allocatePersonId()).toBe(1)
  })

  it('hands out the ids of the current partition, one counter per partition, whatever the project', () => {
    const repo = new PersonRepo()
    const p1 = { partition: 1, partitions: 4 }
    const p3 = { partition: 3, partitions: 4 }
    repo.load(ask({ personIds: p1 }), { ...emptyState, nextPersonId: 6 })
    repo.load(ask({ personIds: p3 }), emptyState)
    expect(repo.unknown(ask({ personIds: p1 }))).toEqual(none)
    repo.useIdSpace(p1)
    expect([repo.allocatePersonId(), repo.allocatePersonId()]).toEqual([6, 10])
    repo.useIdSpace(p3)
    expect([repo.allocatePersonId(), repo.allocatePersonId()]).toEqual([4, 8])
    repo.useIdSpace(p1)
    expect(repo.allocatePersonId()).toBe(14)
    repo.useIdSpace({ partition: 2, partitions: 4 })
    expect(() => repo.allocatePersonId()).toThrow(PersonStateNotLoadedError)
    repo.clear()
    expect(repo.unknown(ask({ personIds: p1 }))).toEqual(ask({ personIds: p1 }))
  })

  it('treats a distinct id whose person is not in memory as unknown', () => {
    const repo = new PersonRepo()
    const wanted = ask({ distinctIds: [{ teamId: T, distinctId: 'a' }] })
    repo.load(wanted, { ...emptyState, distinctIds: [row('a', pu('b'))] })
    expect(repo.unknown(wanted)).toEqual(wanted)
    repo.load(wanted, { ...emptyState, distinctIds: [row('a', pu('b'))], persons: [person('b')] })
    expect(repo.unknown(wanted)).toEqual(none)
    const deleted = ask({ distinctIds: [{ teamId: T, distinctId: 'gone' }] })
    repo.load(deleted, { ...emptyState, distinctIds: [row('gone', pu('x'), { isDeleted: true, version: 3 })] })
    expect(repo.unknown(deleted)).toEqual(none) // a tombstone needs no person
  })

  it('asks for groups of a known type together with their team, and not for groups of a type that does not exist', () => {
    const repo = new PersonRepo()
    repo.load(ask({ teamIds: [T] }), {
      ...emptyState,
      teams: [{ teamId: T, groupTypes: [{ teamId: T, groupType: 'org', groupTypeIndex: 0 }] }],
    })
    const wanted = ask({
      groups: [
        { teamId: T, groupType: 'org', groupKey: 'k' },
        { teamId: T, groupType: 'nope', groupKey: 'k' },
      ],
    })
    expect(repo.unknown(wanted)).toEqual(ask({ teamIds: [T], groups: [{ teamId: T, groupType: 'org', groupKey: 'k' }] }))
    const asked = repo.unknown(wanted)
    repo.load(asked, {
      teams: [{ teamId: T, groupTypes: [{ teamId: T, groupType: 'org', groupTypeIndex: 0 }] }],
      distinctIds: [],
      persons: [],
      groups: [{ teamId: T, groupTypeIndex: 0, groupKey: 'k', properties: { n: 1 }, createdAt: 'c', version: 2 }],
    })
    expect(repo.unknown(wanted)).toEqual(none)
    expect(repo.group(T, 0, 'k')!.properties).toEqual({ n: 1 })
  })

  it('never lets a load go back in time over newer or unsaved memory', () => {
    const repo = new PersonRepo()
    const wanted = ask({ teamIds: [T], distinctIds: [{ teamId: T, distinctId: 'a' }] })
    repo.load(wanted, {
      ...emptyState,
      teams: [{ teamId: T, groupTypes: [] }],
      distinctIds: [row('a', pu('a'))],
      persons: [person('a', { version: 4 })],
    })
    repo.putPerson(person('a', { version: 5, properties: { fresh: true } }))
    repo.load(wanted, { ...emptyState, distinctIds: [row('a', pu('a'))], persons: [person('a', { version: 9 })] })
    expect(repo.person(T, pu('a'))!.properties).toEqual({ fresh: true }) // unsaved change kept
    repo.takeChanges()
    repo.load(wanted, { ...emptyState, persons: [person('a', { version: 3 })] })
    expect(repo.person(T, pu('a'))!.version).toBe(5)
    repo.load(wanted, { ...emptyState, persons: [person('a', { version: 6, properties: { newer: 1 } })] })
    expect(repo.person(T, pu('a'))!.properties).toEqual({ newer: 1 })
  })

  it('throws when the rules read something never loaded', () => {
    const repo = new PersonRepo()
    expect(() => repo.person(T, pu('x'))).toThrow(PersonStateNotLoadedError)
    expect(() => repo.distinctIdRow(T, 'x')).toThrow(PersonStateNotLoadedError)
    expect(() => repo.allocatePersonId()).toThrow(PersonStateNotLoadedError)
    expect(repo.peekPerson(T, pu('x'))).toBeUndefined()
  })
})

describe('PersonRepo changes', () => {
  function loaded() {
    const repo = new PersonRepo()
    repo.load(
      ask({
        teamIds: [T, 2],
        distinctIds: [
          { teamId: T, distinctId: 'a' },
          { teamId: T, distinctId: 'b' },
        ],
        personIds: ONE,
      }),
      {
        ...emptyState,
        teams: [{ teamId: T, groupTypes: [] }],
        distinctIds: [row('a', pu('a'))],
        persons: [person('a')],
      },
    )
    return repo
  }

  it('drains the latest version of each change, sorted, once', () => {
    const repo = loaded()
    repo.putPerson(person('z', { version: 0 }))
    repo.putPerson(person('a', { version: 1 }))
    repo.putPerson(person('a', { version: 2, properties: { last: true } }))
    repo.putDistinctId(row('b', pu('a'), { version: 1 }))
    repo.putDistinctId(row('a', pu('z'), { version: 1 }))
    repo.putGroup({ teamId: T, groupTypeIndex: 1, groupKey: 'k', properties: {}, createdAt: 'c', version: 1 })
    expect(repo.ensureGroupType(2, 'org')).toBe(0)
    expect(repo.ensureGroupType(T, 'org')).toBe(0)
    expect(repo.ensureGroupType(T, 'org')).toBe(0)
    repo.addActivity({ teamId: T, personUuid: pu('a'), activity: 'updated', detail: {}, at: 'x' })
    const changes = repo.takeChanges()
    expect(changes.persons.map((p) => [p.uuid, p.version])).toEqual(
      [
        [pu('a'), 2],
        [pu('z'), 0],
      ].sort((x, y) => (x[0] < y[0] ? -1 : 1)),
    )
    expect(changes.persons.find((p) => p.uuid === pu('a'))!.properties).toEqual({ last: true })
    expect(changes.distinctIds.map((r) => r.distinctId)).toEqual(['a', 'b'])
    expect(changes.groups).toHaveLength(1)
    expect(changes.groupTypes).toEqual([
      { teamId: T, groupType: 'org', groupTypeIndex: 0 },
      { teamId: 2, groupType: 'org', groupTypeIndex: 0 },
    ])
    expect(changes.activity).toHaveLength(1)
    expect(repo.takeChanges()).toEqual({ persons: [], distinctIds: [], activity: [], groups: [], groupTypes: [] })
  })

  it('hands out rows that later writes leave as they were (a write puts a new row, never changes one)', () => {
    const repo = loaded()
    repo.putPerson(person('a', { version: 1, properties: { x: 1 } }))
    repo.addActivity({ teamId: T, personUuid: pu('a'), activity: 'updated', detail: { x: 1 }, at: '2024-01-01T00:00:00.000Z' })
    const taken = repo.takeChanges()
    const before = structuredClone(taken)
    repo.putPerson({ ...repo.person(T, pu('a'))!, version: 2, properties: { x: 2 } })
    repo.addActivity({ teamId: T, personUuid: pu('a'), activity: 'updated', detail: { x: 2 }, at: '2024-01-01T00:00:01.000Z' })
    expect(taken).toEqual(before)
    expect(repo.takeChanges().persons[0].properties).toEqual({ x: 2 })
  })

  it('keeps the distinct-id index of each person, primary id first', () => {
    const repo = loaded()
    repo.putDistinctId(row('zz', pu('a'), { version: 1 }))
    repo.putDistinctId(row('b', pu('a'), { version: 1 }))
    expect(repo.distinctIdsOf(T, pu('a'))).toEqual(['a', 'b', 'zz'])
    repo.putDistinctId(row('b', pu('a'), { version: 2, isDeleted: true }))
    repo.putDistinctId(row('zz', pu('q'), { version: 2 }))
    expect(repo.distinctIdsOf(T, pu('a'))).toEqual(['a'])
    expect(repo.distinctIdsOf(T, pu('q'))).toEqual(['zz'])
  })

  it('rolls back everything an atomic block did when it throws', () => {
    const repo = loaded()
    expect(() =>
      repo.atomically(() => {
        repo.putPerson(person('a', { version: 1, properties: { x: 1 } }))
        repo.putDistinctId(row('b', pu('a'), { version: 1 }))
        repo.allocatePersonId()
        repo.ensureGroupType(T, 'org')
        repo.addActivity({ teamId: T, personUuid: pu('a'), activity: 'updated', detail: {}, at: 'x' })
        repo.warn({ teamId: T, type: 'w', details: {} })
        throw new Error('boom')
      }),
    ).toThrow('boom')
    expect(repo.person(T, pu('a'))!.version).toBe(0)
    expect(repo.distinctIdRow(T, 'b')).toBeNull()
    expect(repo.distinctIdsOf(T, pu('a'))).toEqual(['a'])
    expect(repo.allocatePersonId()).toBe(1)
    expect(repo.groupTypeIndex(T, 'org')).toBeUndefined()
    expect(repo.takeWarnings()).toEqual([])
    expect(repo.takeChanges()).toEqual({ persons: [], distinctIds: [], activity: [], groups: [], groupTypes: [] })
  })
})

describe('PersonRepo eviction', () => {
  it('drops the least recently used clean persons with their distinct ids, never dirty ones', () => {
    const repo = new PersonRepo({ maxPersons: 2 })
    const ids = ['p1', 'p2', 'p3', 'p4']
    const wanted = ask({ teamIds: [T], distinctIds: ids.map((distinctId) => ({ teamId: T, distinctId })) })
    repo.load(
      { ...wanted, personIds: ONE },
      {
        teams: [{ teamId: T, groupTypes: [] }],
        distinctIds: ids.map((id) => row(id, pu(id))),
        persons: ids.map((id) => person(id)),
        groups: [],
        nextPersonId: 5,
      },
    )
    repo.person(T, pu('p1')) // recently used
    repo.putPerson(person('p2', { version: 1 })) // dirty
    repo.evict()
    expect(repo.unknown(wanted).distinctIds.map((d) => d.distinctId)).toEqual(['p3', 'p4'])
    expect(repo.peekPerson(T, pu('p3'))).toBeUndefined()
    expect(repo.peekPerson(T, pu('p2'))!.version).toBe(1)
    expect(repo.allocatePersonId()).toBe(5) // id counters are never evicted
  })

  it('keeps dirty persons even beyond the bound until they are drained', () => {
    const repo = new PersonRepo({ maxPersons: 1 })
    repo.load(ask({ teamIds: [T] }), { ...emptyState, teams: [{ teamId: T, groupTypes: [] }] })
    repo.putPerson(person('a'))
    repo.putPerson(person('b'))
    repo.evict()
    expect([repo.peekPerson(T, pu('a')), repo.peekPerson(T, pu('b'))].every(Boolean)).toBe(true)
    repo.takeChanges()
    repo.evict()
    expect(repo.peekPerson(T, pu('a'))).toBeUndefined()
    expect(repo.peekPerson(T, pu('b'))).toBeDefined()
  })

  it('spares what was used after a moment: the rows of a range still being stored (evict(usedBy))', () => {
    const repo = new PersonRepo({ maxPersons: 1 })
    repo.load(ask({ teamIds: [T] }), { ...emptyState, teams: [{ teamId: T, groupTypes: [] }] })
    repo.putPerson(person('a')) // a range that is stored
    repo.takeChanges()
    const stored = repo.now()
    repo.putPerson(person('b')) // the next range, worked while the one before is stored
    repo.putPerson(person('c'))
    repo.takeChanges()
    repo.evict(stored)
    expect([repo.peekPerson(T, pu('a')), repo.peekPerson(T, pu('b')), repo.peekPerson(T, pu('c'))].map(Boolean)).toEqual([
      false,
      true,
      true,
    ])
    repo.evict(repo.now())
    expect([repo.peekPerson(T, pu('b')), repo.peekPerson(T, pu('c'))].map(Boolean)).toEqual([false, true])
  })

  it('drops known-absent entries and orphan rows beyond the bound', () => {
    const repo = new PersonRepo({ maxPersons: 1 })
    const wanted = ask({
      teamIds: [T],
      distinctIds: ['x', 'y', 'z'].map((distinctId) => ({ teamId: T, distinctId })),
      personUuids: [{ teamId: T, personUuid: pu('x') }],
    })
    repo.load(wanted, { ...emptyState, teams: [{ teamId: T, groupTypes: [] }] })
    expect(repo.unknown(wanted)).toEqual(none)
    repo.evict()
    expect(repo.unknown(wanted).distinctIds).toHaveLength(2)
  })

  it('clear() forgets everything, including unsaved changes', () => {
    const repo = new PersonRepo()
    const wanted = ask({ teamIds: [T], distinctIds: [{ teamId: T, distinctId: 'a' }] })
    repo.load(wanted, { ...emptyState, teams: [{ teamId: T, groupTypes: [] }] })
    repo.putPerson(person('a'))
    repo.warn({ teamId: T, type: 'w', details: {} })
    repo.clear()
    expect(repo.unknown(wanted)).toEqual(wanted)
    expect(repo.takeChanges().persons).toEqual([])
    expect(repo.takeWarnings()).toEqual([])
  })
})
