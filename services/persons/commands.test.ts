// Person commands without HTTP: each change is appended to the log and answered by its applied result;
// the wait starts before the append, and a refused or late command is the caller's error.
import { describe, expect, it } from 'vitest'
import { fixedClock } from '../platform/clock'
import { PersonCommands } from './commands'
import type { PersonRecord } from './queries'

const person: PersonRecord = { id: 1, uuid: 'u-1', properties: {}, createdAt: '', isIdentified: true, distinctIds: ['a', 'b'] }

function setup(result: { ok: true } | { ok: false; status: number; detail: string } | 'late') {
  const events: string[] = []
  const commands = new PersonCommands({
    log: {
      append: async (_topic, messages) => {
        events.push(`append ${messages.length}`)
      },
    },
    processor: {
      waitForCommand: (id) => {
        events.push(`wait ${id.length}`)
        return result === 'late' ? Promise.reject(new Error('timeout')) : Promise.resolve(result)
      },
    },
    queries: { get: async () => ({ ...person, properties: { plan: 'pro' } }) },
    deletions: { enqueuePersonEvents: async (teamId, uuid) => void events.push(`delete events ${teamId} ${uuid}`) },
    clock: fixedClock(new Date('2024-05-01T00:00:00Z')),
  })
  return { commands, events }
}

describe('PersonCommands', () => {
  it('waits before it appends, and answers the person as stored afterwards', async () => {
    const { commands, events } = setup({ ok: true })
    expect((await commands.setProperties(1, person, { plan: 'pro' })).properties).toEqual({ plan: 'pro' })
    expect(events).toEqual(['wait 36', 'append 1'])
  })

  it('deletes the events only when asked, after the person', async () => {
    const { commands, events } = setup({ ok: true })
    await commands.delete(7, person, { deleteEvents: true })
    expect(events.at(-1)).toBe('delete events 7 u-1')
  })

  it('refuses a main distinct id that is not the person’s before appending anything', async () => {
    const { commands, events } = setup({ ok: true })
    await expect(commands.split(1, person, 'c')).rejects.toThrow(/main_distinct_id/)
    expect(events).toEqual([])
  })

  it('a refused command is the caller’s 404 or 400; a late one says it is queued', async () => {
    await expect(
      setup({ ok: false, status: 404, detail: 'Person not found.' }).commands.deleteProperty(1, person, 'x'),
    ).rejects.toMatchObject({
      status: 404,
    })
    await expect(setup('late').commands.deleteProperty(1, person, 'x')).rejects.toThrow(/queued but was not applied in time/)
  })
})
