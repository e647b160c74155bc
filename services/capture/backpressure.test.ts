import { describe, expect, it } from 'vitest'
import { CaptureBackpressure } from './backpressure'
import { WrenError } from '../shared/errors'

describe('CaptureBackpressure', () => {
  it('refuses from the bound on, with Retry-After, and accepts again only below 80% of it', () => {
    let backlog = 0
    const gate = new CaptureBackpressure(() => backlog, 100)
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
    const gate = new CaptureBackpressure(() => 1e9, 0)
    expect(() => gate.admit()).not.toThrow()
  })
})
