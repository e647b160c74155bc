// Flag management without HTTP: a PATCH bumps the version and logs the fields it changed; one that
// changes nothing writes nothing.
import { describe, expect, it } from 'vitest'
import type { ActivityEntry } from './store'
import type { FeatureFlag } from './types'
import { FlagManagement } from './service'

function memoryStore() {
  const flags = new Map<number, FeatureFlag>()
  const activity: ActivityEntry[] = []
  let nextId = 1
  return {
    activity,
    all: (teamId: number) => [...flags.values()].filter((f) => f.teamId === teamId),
    get: (teamId: number, id: number) => (flags.get(id)?.teamId === teamId ? flags.get(id) : undefined),
    allocateId: async () => nextId++,
    save: async (flag: FeatureFlag, entry: ActivityEntry) => {
      flags.set(flag.id, flag)
      activity.push(entry)
    },
    async update(
      teamId: number,
      id: number,
      change: (current: FeatureFlag) => Promise<{ flag: FeatureFlag; activity: ActivityEntry } | null>,
    ) {
      const current = this.get(teamId, id)
      if (!current) return undefined
      const changed = await change(current)
      if (!changed) return current
      const next = { ...changed.flag, version: current.version + 1 }
      await this.save(next, changed.activity)
      return next
    },
    now: () => '2024-05-01T00:00:00.000Z',
  }
}

describe('FlagManagement', () => {
  const setup = () => {
    const store = memoryStore()
    return { store, flags: new FlagManagement(store, { list: async () => [] }) }
  }

  it('a PATCH bumps the version and logs what changed; an unchanged PATCH writes nothing', async () => {
    const { store, flags } = setup()
    const created = await flags.create(1, { key: 'beta', rollout_percentage: 50 }, 'key-a')
    expect(created.version).toBe(1)
    const same = await flags.update(1, String(created.id), { name: '' }, 'key-b')
    expect(same).toBe(created)
    expect(store.activity.map((a) => a.activity)).toEqual(['created'])
    const renamed = await flags.update(1, String(created.id), { name: 'Beta' }, 'key-b')
    expect(renamed).toMatchObject({ version: 2, name: 'Beta', lastModifiedBy: 'key-b' })
    expect(store.activity[1]).toMatchObject({
      activity: 'updated',
      detail: { changes: [{ field: 'name', before: '', after: 'Beta' }] },
    })
    await flags.update(1, String(created.id), { deleted: true }, 'key-b')
    expect(store.activity[2].activity).toBe('deleted')
    expect(flags.list(1, {})).toEqual([])
  })

  it('refuses a cohort of another project, and another project’s flag is not found', async () => {
    const { flags } = setup()
    await expect(
      flags.create(1, { key: 'c', filters: { groups: [{ properties: [{ key: 'id', value: 7, type: 'cohort' }] }] } }, 'k'),
    ).rejects.toThrow(/Cohort 7 does not exist/)
    const other = await flags.create(2, { key: 'other' }, 'k')
    expect(() => flags.get(1, String(other.id))).toThrow()
  })
})
