import { describe, expect, it } from 'vitest'
import { LoginLimits } from './login-limits'
import type { Clock } from '../platform/clock'

function movable(start: number) {
  let now = start
  const clock: Clock = { now: () => new Date(now) }
  return { clock, advance: (ms: number) => (now += ms) }
}

describe('login limits', () => {
  const settings = { perAccount: 3, perAddress: 5, windowMs: 60_000 }

  it('refuses an account past its failures until they leave the window, then lets it in again', () => {
    const { clock, advance } = movable(Date.parse('2026-11-29T10:00:00Z'))
    const limits = new LoginLimits(clock, settings)
    for (let i = 0; i < 3; i++) {
      expect(() => limits.check('a@x', '1.1.1.1')).not.toThrow()
      limits.failed('a@x', '1.1.1.1')
      advance(10_000)
    }
    expect(() => limits.check('a@x', '1.1.1.1')).toThrow(/Too many failed login attempts/)
    expect(() => limits.check('a@x', '2.2.2.2')).toThrow() // per account, from any address
    expect(() => limits.check('b@x', '1.1.1.1')).not.toThrow() // another account from that address
    advance(30_001) // the first failure is now past the window
    expect(() => limits.check('a@x', '1.1.1.1')).not.toThrow()
  })

  it('refuses an address past its failures, whatever the account', () => {
    const { clock } = movable(0)
    const limits = new LoginLimits(clock, settings)
    for (let i = 0; i < 5; i++) limits.failed(`user${i}@x`, '9.9.9.9')
    expect(() => limits.check('new@x', '9.9.9.9')).toThrow()
    expect(() => limits.check('new@x', '8.8.8.8')).not.toThrow()
  })

  it('counts a sign-in with a wrong key against its address only', () => {
    const { clock } = movable(0)
    const limits = new LoginLimits(clock, settings)
    for (let i = 0; i < 5; i++) limits.failed(null, '7.7.7.7')
    expect(() => limits.check(null, '7.7.7.7')).toThrow()
    expect(() => limits.check('a@x', '7.7.7.7')).toThrow()
    expect(() => limits.check(null, '6.6.6.6')).not.toThrow()
    expect(() => limits.check('a@x', '6.6.6.6')).not.toThrow()
  })

  it('forgets an account’s failures when it signs in', () => {
    const { clock } = movable(0)
    const limits = new LoginLimits(clock, settings)
    for (let i = 0; i < 2; i++) limits.failed('a@x', '1.1.1.1')
    limits.succeeded('a@x')
    limits.failed('a@x', '1.1.1.1')
    limits.failed('a@x', '1.1.1.1')
    expect(() => limits.check('a@x', '1.1.1.1')).not.toThrow()
  })
})
