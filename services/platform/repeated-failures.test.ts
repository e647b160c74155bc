import { describe, expect, it } from 'vitest'
import { RepeatedFailures } from './repeated-failures'

describe('RepeatedFailures', () => {
  it('logs a failure every 5 s for 3 minutes as one line with the error, then one line a minute with a count', () => {
    const lines: Array<{ obj: Record<string, unknown>; msg: string }> = []
    let now = 0
    const failures = new RepeatedFailures(
      { warn: (obj, msg) => lines.push({ obj: obj as Record<string, unknown>, msg }) },
      'reload failed',
      { now: () => now },
    )
    for (now = 0; now < 180_000; now += 5_000) failures.failure(new Error(`boom at ${now}`), { what: 'cohorts' })
    expect(lines.map((l) => l.msg)).toEqual([
      'reload failed',
      'reload failed (12 times since the last report)',
      'reload failed (12 times since the last report)',
    ])
    expect((lines[0].obj.err as Error).message).toBe('boom at 0')
    expect(lines[0].obj.what).toBe('cohorts')
    expect(lines[2].obj).toMatchObject({ failures: 12, failuresInARow: 25, lastError: 'boom at 120000' })
    expect(lines[2].obj.err).toBeUndefined()
    failures.success()
    expect(lines[3].msg).toBe('reload failed: recovered after 36 failures')
    // After a recovery the next failure is news again.
    failures.failure(new Error('again'))
    expect(lines[4].msg).toBe('reload failed')
  })
})
