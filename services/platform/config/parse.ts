// How a variable's text becomes a value. Each parser says what it accepts in words, for the error that
// stops a start on a bad value and for docs/configuration.md; `parse` throws on anything else.
import path from 'node:path'
import proxyAddr from '@fastify/proxy-addr'

export interface Parser<T> {
  /** Completes "PORT must be …": what a user may write. */
  accepts: string
  parse(text: string): T
}

export const text: Parser<string> = { accepts: 'any text', parse: (t) => t }

export const integer: Parser<number> = {
  accepts: 'a non-negative integer',
  parse(t) {
    const n = Number(t)
    if (!Number.isInteger(n) || n < 0) throw new Error()
    return n
  },
}

/** A non-negative integer no greater than `max`. */
export function integerUpTo(max: number, accepts: string): Parser<number> {
  return {
    accepts,
    parse(t) {
      const n = integer.parse(t)
      if (n > max) throw new Error()
      return n
    },
  }
}

export const port = integerUpTo(65_535, 'a port number (0 to 65535)')

/** A Linux nice value a thread can be lowered to (setPriority refuses past 19). */
export const niceValue = integerUpTo(19, 'an integer from 0 to 19')

/** The same text, another value: `map(integer, (hours) => hours * 3_600_000)` for a retention in hours. */
export function map<T, U>(parser: Parser<T>, to: (value: T) => U, accepts = parser.accepts): Parser<U> {
  return { accepts, parse: (t) => to(parser.parse(t)) }
}

/** A path, resolved against the working directory once, at start. */
export const filePath: Parser<string> = { accepts: 'a file system path', parse: (t) => path.resolve(t) }

export const instant: Parser<Date> = {
  accepts: 'an ISO 8601 instant such as 2024-01-31T12:00:00Z',
  parse(t) {
    const date = new Date(t)
    if (Number.isNaN(date.getTime())) throw new Error()
    return date
  },
}

export const flag: Parser<boolean> = {
  accepts: '1, true, 0 or false',
  parse(t) {
    if (t === '1' || t === 'true') return true
    if (t === '0' || t === 'false') return false
    throw new Error()
  },
}

export function choice<T extends string>(choices: readonly T[]): Parser<T> {
  return {
    accepts: `one of ${choices.join(', ')}`,
    parse(t) {
      if (!(choices as readonly string[]).includes(t)) throw new Error()
      return t as T
    },
  }
}

/** An http(s) URL, kept as written. */
export const httpUrl: Parser<string> = {
  accepts: 'an http or https URL',
  parse(t) {
    const url = urlOf(t)
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new Error()
    return t
  },
}

/** Comma-separated items, blanks around them and empty items dropped. */
export function list<T>(item: Parser<T>, accepts: string): Parser<T[]> {
  return {
    accepts,
    parse: (t) =>
      t
        .split(',')
        .map((i) => i.trim())
        .filter(Boolean)
        .map((i) => item.parse(i)),
  }
}

/** A browser's origin: scheme and host, optional port, nothing after (what an Origin header holds). */
export const origin: Parser<string> = {
  accepts: 'an origin such as https://app.example.com',
  parse(t) {
    if (urlOf(t)?.origin !== t) throw new Error()
    return t
  },
}

/** What X-Forwarded-For's trust takes: an address, a CIDR, or proxy-addr's names (loopback, …). */
export const proxy: Parser<string> = {
  accepts: 'an address or CIDR',
  parse(t) {
    proxyAddr.compile([t])
    return t
  },
}

/** A Kafka broker: host:port ([v6]:port for an IPv6 address). */
export const hostPort: Parser<string> = {
  accepts: 'host:port',
  parse(t) {
    if (!/^(\[[0-9a-fA-F:.]+\]|[^\s:[\]/]+):\d{1,5}$/.test(t)) throw new Error()
    return t
  },
}

/** Kafka's topic characters (a topic or consumer group name's prefix): empty, or letters, digits, '.', '_' and '-'. */
export const kafkaName: Parser<string> = {
  accepts: "letters, digits, '.', '_' and '-' (up to 100)",
  parse(t) {
    if (!/^[A-Za-z0-9._-]{0,100}$/.test(t)) throw new Error()
    return t
  },
}

function urlOf(t: string): URL | null {
  try {
    return new URL(t)
  } catch {
    return null
  }
}

/** A bootstrap key's shortest length: a guessable key grants every scope. Wren's own are 44 characters. */
export const MIN_KEY_LENGTH = 32

/**
 * What example keys look like, those of Wren's own files (infra/example.env's phc_replace_me_…) among them:
 * a deployment that kept one runs with a key anyone can read.
 */
const PLACEHOLDER_WORDS = /replace|change.?me|placeholder|example|your.{0,24}key|secret|…|\.\.\./i

/** A key that is neither short nor a placeholder; the error says which (the key itself is never shown). */
export const secretKey: Parser<string> = {
  accepts: `a key of at least ${MIN_KEY_LENGTH} characters that is not a placeholder (\`npx wren init\` writes fresh ones into .env)`,
  parse(t) {
    if (PLACEHOLDER_WORDS.test(t)) throw new Error('this one is a placeholder')
    if (t.length < MIN_KEY_LENGTH) throw new Error(`this one has ${t.length}`)
    return t
  },
}

/** An email address as sign-in takes one (something@somewhere). */
export const email: Parser<string> = {
  accepts: 'an email address',
  parse(t) {
    if (!/^[^\s@]+@[^\s@]+$/.test(t.trim())) throw new Error()
    return t.trim().toLowerCase()
  },
}

/** A password for the owner created at first start: long enough, and not a placeholder anyone can read. */
export const password: Parser<string> = {
  accepts: `a password of at least 8 characters that is not a placeholder`,
  parse(t) {
    if (PLACEHOLDER_WORDS.test(t) || /^password/i.test(t)) throw new Error('this one is a placeholder')
    if (t.length < 8) throw new Error(`this one has ${t.length}`)
    return t
  },
}
