import { describe, expect, it } from 'vitest'
import { eventBackpressure, recordingsBackpressure } from './backpressure'
import { WrenError } from '../platform/errors'

describe('capture backpressure', () => {
  it('refuses from the bound on, with Retry-After, and accepts again only below 80% of it', () => {
    let backlog = 0
    const gate = eventBackpressure(() => backlog, 100)
    const refused = () => {
      try {
        gate.admit()
        return null
      } catch (err) {
        return err as WrenError
      }
    }
    for (const [waiting, expected] of [
      [99, false],
      [100, true],
      [90, true],
      [80, true],
      [79, false],
      [99, false],
      [150, true],
    ] as const) {
      backlog = waiting
      expect(refused() !== null, `backlog ${waiting}`).toBe(expected)
    }
    const err = refused()!
    expect(err.status).toBe(503)
    expect(err.toJSON()).toMatchObject({ type: 'server_error', code: 'ingestion_backlog_full', attr: null })
    expect(err.message).toContain('150 messages behind (limit WREN_MAX_BACKLOG=100)')
    expect(err.headers['retry-after']).toMatch(/^\d+$/)
  })

  it('never refuses with a bound of 0', () => {
    const gate = eventBackpressure(() => 1e9, 0)
    expect(() => gate.admit()).not.toThrow()
  })

  it('refuses snapshots past either recordings limit, and accepts again once both are below 80%', () => {
    let lag: { messages: number; logBytes: number | null } = { messages: 0, logBytes: 0 }
    const gate = recordingsBackpressure(() => lag, { maxBacklog: 100, maxBacklogBytes: 1000 })
    const refusal = () => {
      try {
        gate.admit()
        return null
      } catch (err) {
        return (err as WrenError).message
      }
    }
    lag = { messages: 10, logBytes: 999 }
    expect(refusal()).toBeNull()
    lag = { messages: 10, logBytes: 1000 }
    expect(refusal()).toContain(
      'The snapshots log holds 1000 bytes (limit WREN_MAX_RECORDINGS_BACKLOG_BYTES=1000): snapshots are not accepted',
    )
    lag = { messages: 90, logBytes: 100 } // bytes drained, messages still past 80%
    expect(refusal()).toContain('Recordings processing is 90 messages behind (limit WREN_MAX_RECORDINGS_BACKLOG=100)')
    lag = { messages: 79, logBytes: 100 }
    expect(refusal()).toBeNull()
    lag = { messages: 100, logBytes: 0 }
    expect(refusal()).toContain('100 messages behind')
    // The recordings bound refused it: its own code, not ingestion's.
    expect(() => gate.admit()).toThrow(expect.objectContaining({ status: 503, code: 'recordings_backlog_full' }))
    // Kafka reports no bytes: only messages count.
    lag = { messages: 10, logBytes: null }
    expect(refusal()).toBeNull()
  })
})
