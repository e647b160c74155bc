// Passwords, stored as scrypt hashes (a memory-hard KDF from Node's crypto): `scrypt$N$r$p$salt$hash`, salt
// and hash base64url. The cost is stored with each hash, so raising it later leaves existing hashes readable.
// A check compares in constant time, and a check against no user (an unknown email) costs as much as one
// against a user, so the time of a failed sign-in does not tell which part was wrong.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import { wrenError } from '../platform/errors'
import { Gate } from '../platform/serial'

/**
 * One of OWASP's equivalent scrypt settings (its Password Storage Cheat Sheet: N=2^17, r=8, p=1, or as here
 * N=2^15, r=8, p=3): 32 MiB per check rather than 128, the work made up by p. It runs on libuv's thread
 * pool, never on the main thread.
 */
const COST = { N: 2 ** 15, r: 8, p: 3 }
const KEY_LENGTH = 32
/** Node refuses N·r·128 above maxmem; room for the cost above. */
const MAX_MEMORY = 64 * 1024 * 1024

/** PostHog's rule (Django's MinimumLengthValidator as PostHog sets it): at least 8 characters. */
export const MIN_PASSWORD_LENGTH = 8
/** Longer than anyone types; bounds the work a request can ask for. */
export const MAX_PASSWORD_LENGTH = 256

/**
 * Two scrypts at once, 64 more in line, then a 429 to retry. Each takes one of libuv's 4 threads (shared with file,
 * DNS and zlib work) for about a quarter of a second, so a flood of sign-ins from many addresses (which the
 * per-address limits do not stop) waits its turn or is refused, and never takes the whole pool or piles up 32 MiB
 * per check.
 */
const SCRYPT = new Gate(2, 64, () => wrenError('throttled', 'Too many sign-ins at once: retry in a moment.'))

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: MAX_MEMORY }
  return SCRYPT.run(
    () =>
      new Promise((resolve, reject) =>
        scryptCallback(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
      ),
  )
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await derive(password, salt, COST)
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

/** A hash of a random password: what an unknown user's check runs against, to cost the same. */
let decoy: Promise<string> | null = null

/** Whether `password` is the one `stored` was made from; `stored` null or '' (no user, no password yet) never matches. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const target = stored || (await (decoy ??= hashPassword(randomBytes(16).toString('hex'))))
  const parts = target.split('$')
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false
  const [N, r, p] = parts.slice(1, 4).map(Number)
  const expected = Buffer.from(parts[5], 'base64url')
  const key = await derive(password, Buffer.from(parts[4], 'base64url'), { N, r, p })
  return key.length === expected.length && timingSafeEqual(key, expected) && Boolean(stored)
}
