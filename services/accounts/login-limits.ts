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
/** Counters kept before the expired ones are swept (each is a few timestamps). */
const MAX_COUNTED = 100_000

export const LOGIN_LIMITS: LoginLimitSettings = { perAccount: 10, perAddress: 50, windowMs: 15 * 60_000 }

export class LoginLimits {
  private readonly failures = new Map<string, number[]>()

  constructor(
    private readonly clock: Clock,
    private readonly settings: LoginLimitSettings = LOGIN_LIMITS,
  ) {}

  /** Throws when the account (null: a sign-in with a key, no account) or the address has failed too often within the window. */
  check(email: string | null, address: string): void {
    const now = this.clock.now().getTime()
    for (const [key, max] of this.counted(email, address)) {
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

  failed(email: string | null, address: string): void {
    const now = this.clock.now().getTime()
    if (this.failures.size >= MAX_COUNTED) this.forgetExpired(now)
    for (const [key] of this.counted(email, address)) this.failures.set(key, [...this.recent(key, now), now])
  }

  succeeded(email: string): void {
    this.failures.delete(`account:${email}`)
  }

  /** The counters a sign-in touches, with their limits. */
  private counted(email: string | null, address: string): Array<[string, number]> {
    return [
      ...(email === null ? [] : [[`account:${email}`, this.settings.perAccount] as [string, number]]),
      [`address:${address}`, this.settings.perAddress],
    ]
  }

  /** Drops every counter whose failures have all left the window (many accounts or addresses failing at once). */
  private forgetExpired(now: number): void {
    for (const key of [...this.failures.keys()]) this.recent(key, now)
  }

  /** The key's failures still inside the window (older ones are forgotten here). */
  private recent(key: string, now: number): number[] {
    const kept = (this.failures.get(key) ?? []).filter((at) => at > now - this.settings.windowMs)
    if (kept.length) this.failures.set(key, kept)
    else this.failures.delete(key)
    return kept
  }
}
