// The read-modify-write every configuration update goes through: a writer whose claim is denied re-reads
// and applies its change to the newer record; one denied every time gets 409 conflict; updates of one
// object in a process run one at a time.
import { describe, expect, it } from 'vitest'
import { VersionedUpdates } from './versioned-update'
import { WrenError } from './errors'

type Record_ = { version: number; a?: string; b?: string }

describe('VersionedUpdates', () => {
  const object = { kind: 'project' as const, id: 1 }

  it('applies the change to the record another process wrote after a denied claim', async () => {
    let stored: Record_ = { version: 1 }
    const claims: number[] = []
    const updates = new VersionedUpdates({
      claimVersion: async (_o, expected) => {
        claims.push(expected)
        if (claims.length > 1) return true
        stored = { version: 2, a: 'other process' } // the writer that won
        return false
      },
    })
    const outcome = await updates.update<Record_>({
      object,
      read: async () => stored,
      change: (current) => ({ ...current, b: 'mine' }),
      write: async (next) => {
        stored = next
      },
    })
    expect(claims).toEqual([1, 2])
    expect(stored).toEqual({ version: 3, a: 'other process', b: 'mine' })
    expect(outcome).toEqual({ status: 'written', next: stored })
  })

  it('answers 409 conflict when every claim is denied, and writes nothing', async () => {
    const updates = new VersionedUpdates({ claimVersion: async () => false })
    let writes = 0
    const err = await updates
      .update<Record_>({ object, read: async () => ({ version: 1 }), change: (c) => c, write: async () => void writes++ })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(WrenError)
    expect((err as WrenError).status).toBe(409)
    expect((err as WrenError).code).toBe('conflict')
    expect(writes).toBe(0)
  })

  it('runs the updates of one object one at a time in a process', async () => {
    let stored: Record_ = { version: 1 }
    const updates = new VersionedUpdates({ claimVersion: async (_o, expected) => expected === stored.version })
    const update = (field: 'a' | 'b') =>
      updates.update<Record_>({
        object,
        read: async () => ({ ...stored }),
        change: (current) => ({ ...current, [field]: field }),
        write: async (next) => {
          await new Promise((resolve) => setTimeout(resolve, 20))
          stored = next
        },
      })
    await Promise.all([update('a'), update('b')])
    expect(stored).toEqual({ version: 3, a: 'a', b: 'b' })
  })
})
