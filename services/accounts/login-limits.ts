// Failed sign-ins, limited per account and per client address (PostHog uses django-axes for this): past
// `perAccount` failures for one email, or `perAddress` from one address, within the window, sign-in answers
// 403 too_many_failed_attempts, the right password included, until enough failures have left the window.
// A limit, never a lockout: the right password works again when the window has passed. A successful sign-in
// clears the account's failures. Counted in each process's memory (in cluster mode, per api process).
import { WrenError } from '../platform/errors'
import type { Clock } from '../platform/clock'

export interface LoginLimitSettings {
  perAccount: number
  perAddress: number
  windowMs: number
}

/** PostHog's django-axes settings: a 15-minute cool-off. */
export const LOGIN_LIMITS: LoginLimitSettings = { perAccount: 10, perAddress: 50, windowMs: 15 * 60_000 }

export class LoginLimits {
  private readonly failures = new Map<string, number[]>()

  constructor(
    private readonly clock: Clock,
    private readonly settings: LoginLimitSettings = LOGIN_LIMITS,
  ) {}

  /** Throws when the account or the address has failed too often within the window. */
  check(email: string, address: string): void {
    const now = this.clock.now().getTime()
    for (const [key, max] of [
      [`account:${email}`, this.settings.perAccount],
      [`address:${address}`, this.settings.perAddress],
    ] as const) {
      const recent = this.recent(key, now)
      if (recent.length >= max) {
        const seconds = Math.max(1, Math.ceil((recent[recent.length - max] + this.settings.windowMs - now) / 1000))
        throw new WrenError(
          'too_many_failed_attempts',
          `Too many failed login attempts. Please try again in ${Math.ceil(seconds / 60)} minutes.`,
          null,
          {
            headers: { 'retry-after': String(seconds) },
          },
        )
      }
    }
  }

  failed(email: string, address: string): void {
    const now = this.clock.now().getTime()
    for (const key of [`account:${email}`, `address:${address}`]) this.failures.set(key, [...this.recent(key, now), now])
  }

  succeeded(email: string): void {
    this.failures.delete(`account:${email}`)
  }

  /** The key's failures still inside the window (older ones are forgotten here). */
  private recent(key: string, now: number): number[] {
    const kept = (this.failures.get(key) ?? []).filter((at) => at > now - this.settings.windowMs)
    if (kept.length) this.failures.set(key, kept)
    else this.failures.delete(key)
    return kept
  }
}
