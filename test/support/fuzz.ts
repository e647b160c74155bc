// Hostile requests for every route, from a seeded generator (the same seed gives the same requests):
// truncated JSON, wrong types, deep nesting, invalid UTF-8, lying content encodings, gzip and lz64 bombs,
// huge strings, prototype-pollution keys, random bytes, malformed HTTP, numbers past 2^53 (in ids, query
// strings and bodies), repeated query parameters, session-recording snapshots as posthog-js sends them and
// mangled, the management API under every kind of key (./fuzz-management.ts), query input shaped to break the
// query (HogQL past ClickHouse's parser depth, filters listing thousands of values), and, every so often, a burst of
// many concurrent bodies of several MB. Used by test/http/fuzz-public-routes.test.ts (a bounded run) and
// test/stress/fuzz.ts (a long one).
import { gzipSync } from 'node:zlib'
import net from 'node:net'
import lzString from 'lz-string'
import { lzBomb } from './lz-bomb'
import { seeded } from './random'
import { fillPath, sample, type Draw, type ManagementTargets } from './fuzz-management'
import { interactions, pageLoad, posthogJsRequest, snapshotBatch, type RrwebEvent } from './rrweb'

export interface FuzzRequest {
  /** What was generated, to name a failure. */
  what: string
  /** Which of the generator's kinds, to count what a run covered. */
  kind: FuzzKind
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'OPTIONS'
  path: string
  headers: Record<string, string>
  body?: Buffer
  /** Sent as these bytes on a raw socket instead (malformed HTTP that fetch cannot send). */
  raw?: Buffer
  /** Sent all at once instead (the request itself is only their envelope). */
  burst?: FuzzRequest[]
}

export type FuzzKind =
  'capture' | 'snapshots' | 'decide' | 'config' | 'local-evaluation' | 'management' | 'query' | 'methods' | 'raw' | 'burst'

export interface FuzzKeys {
  projectKey: string
  personalKey: string
  /** The management routes and keys to fuzz them with; none without it. */
  management?: ManagementTargets
}

export interface FuzzOptions {
  /** A burst of 8–16 concurrent large bodies to /s/ and /batch/ every this many requests; none without it. */
  burstEvery?: number
  /** The sizes a burst's bodies are drawn from, in bytes (some near or past the 20 MiB limit). */
  burstSizes?: number[]
}

const MiB = 1024 * 1024
const BURST_SIZES = [1 * MiB, 3 * MiB, 5 * MiB, 8 * MiB, 12 * MiB, 19.5 * MiB, 20 * MiB - 4096, 20.5 * MiB]
/** Numbers no double holds exactly, as JSON text, path ids and query values. */
const BIG_LITERALS = [
  '9007199254740993',
  '99999999999999999999',
  '-99999999999999999999',
  '1e30',
  '1e400',
  '123456789012345678901234567890',
]
/** Query parameters the routes read, to repeat. */
const REPEATABLE = ['compression', '_', 'ver', 'v', 'ip', 'beacon', 'config', 'token', 'api_key', 'limit', 'offset', 'format', 'data']

const CAPTURE_PATHS = ['/e/', '/i/v0/e/', '/batch/', '/capture/', '/track/', '/engage/']
const DECIDE_PATHS = [
  '/decide/',
  '/decide/?v=2',
  '/decide/?v=3',
  '/decide/?v=4',
  '/flags/',
  '/flags/?v=1',
  '/flags/?v=2',
  '/flags/?v=2&config=true',
]

// Built once: ~20 KB of gzip that inflates past the 20 MB cap, and 256 KB of lz-string asking for billions of characters.
let bombs: { gzip: Buffer; lz64: string } | null = null
function bombsOnce(): { gzip: Buffer; lz64: string } {
  bombs ??= { gzip: gzipSync(Buffer.alloc(21 * 1024 * 1024, 0x20)), lz64: lzBomb(100_000) }
  return bombs
}

export function* fuzzRequests(seed: number, keys: FuzzKeys, count: number, opts: FuzzOptions = {}): Generator<FuzzRequest> {
  const random = seeded(seed)
  const int = (n: number) => Math.floor(random() * n)
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]
  const chance = (p: number) => random() < p
  // Snapshots are recent: a recording older than the project's retention is stored but never shown.
  const epoch = Date.now()
  const bigLiteral = () => pick(BIG_LITERALS)
  // A placeholder that jsonText turns into the bare literal (JSON.stringify has no number past 2^53).
  const big = (): unknown => `@@big@@${bigLiteral()}`

  // --- JSON values -----------------------------------------------------------------------------------------
  const weirdStrings = [
    '',
    ' ',
    'null',
    'undefined',
    '\u0000',
    '\ud800',
    '\udfff',
    '😀'.repeat(3),
    '\u202eevil',
    'a'.repeat(300),
    '%00',
    '../../etc/passwd',
    '<script>',
    "'; DROP TABLE events; --",
    '{{7*7}}',
    '$set',
    '__proto__',
    'constructor',
  ]
  const weirdNumbers = [0, -0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, 2 ** 64, 1e-320]
  const scalar = (): unknown =>
    pick([() => pick(weirdStrings), () => pick(weirdNumbers), () => chance(0.5), () => null, () => [], () => ({}), big])()
  const hugeString = () => pick(['x', 'é', '😀', '\\', '"'])!.repeat(chance(0.9) ? 20_000 + int(200_000) : 1_000_000 + int(2_000_000))
  // A placeholder that jsonText turns into `depth` levels of nesting (JSON.stringify itself would overflow the stack).
  const nested = (depth: number): string => `@@deep@@${depth}`
  const nestedText = (depth: number): string => {
    const open: string[] = []
    const close: string[] = []
    for (let i = 0; i < depth; i++) {
      const array = chance(0.5)
      open.push(array ? '[' : '{"n":')
      close.push(array ? ']' : '}')
    }
    return open.join('') + '1' + close.reverse().join('')
  }
  // Own "__proto__" / "constructor" keys, as JSON.parse makes them (an object literal would set the prototype).
  const pollution = (): Record<string, unknown> =>
    JSON.parse(
      pick([
        '{"__proto__":{"polluted":"yes","$set":{"a":1}}}',
        '{"constructor":{"prototype":{"polluted":"yes"}}}',
        '{"prototype":{"polluted":"yes"}}',
        '{"__proto__":[1,2]}',
        '{"hasOwnProperty":1,"toString":"x","valueOf":null}',
      ]),
    )
  const properties = (): Record<string, unknown> => {
    const props: Record<string, unknown> = {
      $current_url: 'https://fuzz.example/' + int(1000),
      $browser: pick(['Chrome', 'Firefox', '']),
      n: int(100),
    }
    if (chance(0.2)) props.$set = chance(0.5) ? { plan: pick(['free', 'pro']), ...pollution() } : scalar()
    if (chance(0.1)) props.$set_once = scalar()
    if (chance(0.1)) props.$groups = chance(0.5) ? { company: pick(['acme', 'globex', '', '__proto__']) } : scalar()
    if (chance(0.1)) props.$unset = chance(0.5) ? ['plan', '__proto__'] : scalar()
    if (chance(0.1)) Object.assign(props, pollution())
    if (chance(0.05)) props.big = hugeString()
    if (chance(0.05)) props.deep = nested(pick([50, 127, 129, 1_000, 20_000]))
    if (chance(0.05)) props.huge = big()
    return props
  }
  const eventName = () =>
    pick([
      '$pageview',
      'clicked',
      '$identify',
      '$create_alias',
      '$merge_dangerously',
      '$groupidentify',
      '$set',
      '$performance_event',
      '',
      '$exception',
      '$snapshot',
      '__proto__',
    ])
  const event = (token: boolean): Record<string, unknown> => {
    const e: Record<string, unknown> = {
      event: eventName(),
      distinct_id: chance(0.9) ? `fuzz-${int(50)}` : scalar(),
      properties: properties(),
    }
    if (token) (e.properties as Record<string, unknown>).token = keys.projectKey
    if (chance(0.3))
      e.timestamp = pick(['2026-01-01T00:00:00Z', 'garbage', '9999-99-99', '-1', '1700000000', '2020-01-01T00:00:00+25:00', 1e20, null])
    if (chance(0.2))
      e.uuid = pick(['not-a-uuid', '018f1a2b-3c4d-7e5f-8a9b-0c1d2e3f4a5b', '', 7, null, '{018F1A2B-3C4D-7E5F-8A9B-0C1D2E3F4A5B}'])
    if (chance(0.1)) e.offset = chance(0.5) ? big() : scalar()
    if (chance(0.1)) e.$set = scalar()
    if (e.event === '$create_alias' || e.event === '$merge_dangerously')
      (e.properties as Record<string, unknown>).alias = chance(0.7) ? `fuzz-${int(50)}` : scalar()
    if (e.event === '$groupidentify')
      Object.assign(e.properties as object, {
        $group_type: pick(['company', 'org', 'team', 'a', 'b', 'c', '', '__proto__']),
        $group_key: chance(0.7) ? `g-${int(5)}` : scalar(),
        $group_set: chance(0.7) ? { name: 'x', ...pollution() } : scalar(),
      })
    return e
  }
  const capturePayload = (): unknown => {
    switch (int(5)) {
      case 0:
        return { api_key: keys.projectKey, ...event(false) }
      case 1:
        return Array.from({ length: 1 + int(5) }, () => event(true))
      case 2:
        return {
          api_key: keys.projectKey,
          batch: Array.from({ length: 1 + int(20) }, () => event(false)),
          sent_at: pick([new Date().toISOString(), 'garbage', 5, null]),
          historical_migration: scalar(),
        }
      case 3:
        return { $token: keys.projectKey, $distinct_id: `fuzz-${int(50)}`, $set: { ...pollution(), plan: 'x' } }
      default:
        return { ...event(true), api_key: pick([keys.projectKey, keys.personalKey, 'phc_nonexistent', '', 5, null]) }
    }
  }
  const decidePayload = (): unknown => ({
    [pick(['api_key', 'token', '$token'])]: chance(0.9) ? keys.projectKey : scalar(),
    distinct_id: chance(0.85) ? `fuzz-${int(50)}` : scalar(),
    ...(chance(0.4) ? { groups: chance(0.7) ? { company: 'acme', ...pollution() } : scalar() } : {}),
    ...(chance(0.4) ? { person_properties: chance(0.7) ? { plan: 'pro', ...pollution() } : scalar() } : {}),
    ...(chance(0.3) ? { group_properties: chance(0.7) ? { company: { size: 5 }, ...pollution() } : scalar() } : {}),
    ...(chance(0.2) ? { flag_keys_to_evaluate: chance(0.5) ? ['a', 5, null] : scalar() } : {}),
    ...(chance(0.1) ? { deep: nested(pick([129, 5_000])) } : {}),
    ...(chance(0.05) ? { big: hugeString() } : {}),
  })
  // Replaces one value somewhere in the tree with a value of another type.
  const wrongType = (value: unknown): unknown => {
    if (Array.isArray(value) && value.length > 0) {
      const copy = [...value]
      const i = int(copy.length)
      copy[i] = chance(0.5) ? wrongType(copy[i]) : scalar()
      return copy
    }
    if (value && typeof value === 'object') {
      const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) }
      const keysOf = Object.keys(copy)
      if (keysOf.length === 0) return scalar()
      const k = pick(keysOf)
      copy[k] = chance(0.5) ? wrongType(copy[k]) : scalar()
      return copy
    }
    return scalar()
  }

  // --- bytes -----------------------------------------------------------------------------------------------
  const randomBytes = (n: number) => Buffer.from(Array.from({ length: n }, () => int(256)))
  const invalidUtf8 = (bytes: Buffer) => {
    const out = Buffer.from(bytes)
    for (let i = 0; i < 1 + int(4); i++) if (out.length) out[int(out.length)] = 0x80 + int(0x80)
    return out
  }
  const truncate = (bytes: Buffer) => bytes.subarray(0, int(Math.max(1, bytes.length)))
  interface Encoded {
    body: Buffer
    query: string
    headers: Record<string, string>
    how: string
  }
  const encode = (json: string, pathIsCapture: boolean): Encoded => {
    const plain = Buffer.from(json)
    const b64 = plain.toString('base64')
    // lz-string compresses ~2 MB/s: large payloads go in the other encodings.
    const small = json.length <= 50_000
    const lz = () => (small ? lzString.compressToBase64(json) : b64)
    const encodings: Array<() => Encoded> = [
      () => ({ body: plain, query: '', headers: { 'content-type': 'application/json' }, how: 'json' }),
      () => ({ body: truncate(plain), query: '', headers: { 'content-type': 'application/json' }, how: 'truncated json' }),
      () => ({ body: invalidUtf8(plain), query: '', headers: { 'content-type': 'application/json' }, how: 'invalid utf-8' }),
      () => ({ body: gzipSync(plain), query: '', headers: { 'content-encoding': 'gzip', 'content-type': 'text/plain' }, how: 'gzip' }),
      () => ({ body: truncate(gzipSync(plain)), query: '?compression=gzip-js', headers: {}, how: 'truncated gzip' }),
      () => ({
        body: Buffer.concat([Buffer.from([0x1f, 0x8b]), randomBytes(int(200))]),
        query: '',
        headers: {},
        how: 'gzip magic, garbage',
      }),
      () => ({
        body: plain,
        query: '',
        headers: { 'content-encoding': pick(['gzip', 'br', 'deflate', 'lz64', 'identity, gzip', 'x-unknown']) },
        how: 'lying content-encoding',
      }),
      () => ({
        body: plain,
        query: `?compression=${pick(['gzip', 'lz64', 'base64', 'lz-string', 'bogus'])}`,
        headers: {},
        how: 'lying compression hint',
      }),
      () => ({ body: Buffer.from(lz()), query: '?compression=lz64', headers: {}, how: small ? 'lz64' : 'base64 hinted lz64' }),
      () => ({
        body: invalidUtf8(Buffer.from(lz())),
        query: '?compression=lz64',
        headers: {},
        how: small ? 'corrupted lz64' : 'corrupted base64 hinted lz64',
      }),
      () => ({
        body: Buffer.from(b64),
        query: chance(0.5) ? '?compression=base64' : '',
        headers: { 'content-type': 'text/plain' },
        how: 'base64',
      }),
      () => ({
        body: Buffer.from(`data=${encodeURIComponent(chance(0.5) ? b64 : lz())}&compression=${pick(['base64', 'lz64', 'gzip', ''])}`),
        query: '',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        how: 'form',
      }),
      () => ({
        body: Buffer.from(`data=${b64}`),
        query: '',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        how: 'sloppy form',
      }),
      () => ({ body: bombsOnce().gzip, query: '', headers: { 'content-encoding': 'gzip' }, how: 'gzip bomb' }),
      () => ({ body: Buffer.from(bombsOnce().lz64), query: '?compression=lz64', headers: {}, how: 'lz64 bomb' }),
      () => ({
        body: Buffer.from(`data=${encodeURIComponent(bombsOnce().lz64)}&compression=lz64`),
        query: '',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        how: 'lz64 bomb in a form',
      }),
      () => ({
        body: randomBytes(int(2_000)),
        query: '',
        headers: {
          'content-type': pick(['application/json', 'text/plain', 'application/octet-stream', 'multipart/form-data; boundary=x']),
        },
        how: 'random bytes',
      }),
      () => ({ body: Buffer.alloc(0), query: '', headers: { 'content-type': 'application/json' }, how: 'empty' }),
    ]
    if (!pathIsCapture) encodings.splice(10, 1) // raw base64 bodies are a capture-only wire form
    return pick(encodings)()
  }

  // --- requests ----------------------------------------------------------------------------------------------
  const jsonText = (value: unknown): string => {
    const text = (JSON.stringify(value) ?? 'null')
      .replace(/"@@deep@@(\d+)"/g, (_, depth: string) => nestedText(Number(depth)))
      .replace(/"@@big@@([^"]+)"/g, '$1')
    return chance(0.1) ? text.replace(/"[^"]*":/, '"__proto__":') : text
  }
  const tokens = () =>
    pick([keys.projectKey, keys.personalKey, 'phc_nope', 'a'.repeat(2_000), '%00', '..%2F..%2Fetc', '%F0%9F%98%80', '%ZZ', 'null', ' '])

  const draw: Draw = { int, chance, pick, scalar, big }

  // posthog-js's /s/ requests, as sent (gzip-js) or in any other encoding, valid or mangled.
  const snapshots = (): FuzzRequest => {
    const at = epoch - int(3_600_000)
    const compressed = chance(0.5)
    const chunks: RrwebEvent[][] = chance(0.3)
      ? [pageLoad(at, { compressed, bytes: chance(0.1) ? 300_000 : 4_000 }), interactions(at + 10, int(5), { compressed })]
      : [interactions(at, 1 + int(30), { compressed })]
    const sessionId = chance(0.9) ? `fuzz-session-${int(20)}` : pick(['', 'a'.repeat(71), 'bad id!', '__proto__', 'ünï'])
    const token = chance(0.9) ? keys.projectKey : pick([keys.personalKey, 'phc_nope', ''])
    let batch: unknown = snapshotBatch({ token, sessionId, distinctId: `fuzz-${int(50)}` }, chunks)
    let how = 'valid'
    if (chance(0.5)) {
      const events = batch as Array<{ properties: Record<string, unknown> } & Record<string, unknown>>
      const first = events[0].properties
      how = pick(['wrong type', 'no data', 'data not rrweb', 'garbage cv', 'big numbers', 'one object', 'pollution', 'empty'])
      if (how === 'wrong type') batch = wrongType(batch)
      else if (how === 'no data') delete first.$snapshot_data
      else if (how === 'data not rrweb') first.$snapshot_data = scalar()
      else if (how === 'garbage cv')
        first.$snapshot_data = [{ type: 2, cv: '2024-10', timestamp: at, data: pick(['\u001f\u008bxx', '', 'not gzip']) }]
      else if (how === 'big numbers')
        Object.assign(events[0], { timestamp: big(), offset: big() }, { properties: { ...first, $snapshot_bytes: big() } })
      else if (how === 'one object') batch = events[0]
      else if (how === 'pollution') events[0].properties = { ...first, ...pollution() }
      else batch = []
    }
    if (chance(0.5)) {
      const { path, body } = posthogJsRequest(JSON.parse(jsonText(batch)), at)
      return { what: `POST /s/ (posthog-js gzip-js, ${how})`, kind: 'snapshots', method: 'POST', path, headers: {}, body }
    }
    const e = encode(jsonText(batch), true)
    return {
      what: `POST /s/ (${e.how}, ${how})`,
      kind: 'snapshots',
      method: 'POST',
      path: '/s/' + e.query,
      headers: e.headers,
      body: e.body,
    }
  }

  // A management route from the router: ids of every kind, query values and bodies from its schema, mangled,
  // under the `*` key, a limited one, or none that works.
  const management = (targets: ManagementTargets): FuzzRequest => {
    const route = pick(targets.routes)
    const path = fillPath(route.url, targets.projectId, draw, bigLiteral)
    const query = Object.entries(route.query)
      .filter(() => chance(0.4))
      .map(([name, schema]) => {
        const value = chance(0.8) ? sample(schema, draw) : scalar()
        const text = typeof value === 'string' ? value.replace(/^@@big@@/, '') : (JSON.stringify(value) ?? '')
        return `${name}=${percentEncoded(text)}`
      })
    const auth = pick([
      ...Array(10).fill(keys.personalKey),
      ...targets.limitedKeys,
      ...targets.limitedKeys,
      keys.projectKey,
      'phx_nope',
      '',
    ]) as string
    const headers: Record<string, string> = auth ? { authorization: `Bearer ${auth}` } : {}
    const what = `${route.method} ${route.url} (${auth === keys.personalKey ? '*' : auth.slice(0, 8) || 'no key'})`
    const fullPath = path + (query.length ? '?' + query.join('&') : '')
    if (route.method === 'GET' || route.method === 'DELETE')
      return { what, kind: 'management', method: route.method as FuzzRequest['method'], path: fullPath, headers }
    let body = route.body ? sample(route.body, draw) : scalar()
    if (chance(0.3)) body = wrongType(body)
    if (chance(0.1) && body && typeof body === 'object' && !Array.isArray(body)) body = { ...body, ...pollution() }
    const json = jsonText(body)
    const e = chance(0.8)
      ? { body: Buffer.from(json), query: '', headers: { 'content-type': 'application/json' }, how: 'json' }
      : encode(json, false)
    return {
      what: `${what} (${e.how})`,
      kind: 'management',
      method: route.method as FuzzRequest['method'],
      path: fullPath + (e.query ? (query.length ? '&' : '?') + e.query.slice(1) : ''),
      headers: { ...headers, ...e.headers },
      body: e.body,
    }
  }

  // Query input shaped to break the query rather than ask a question (issue 30): HogQL nested past ClickHouse's
  // parser depth, names an object's prototype answers, remainders by zero, numbers past 2^53, functions and
  // fields outside the subset; group filters naming no group type, filters listing thousands of values, dates
  // past what a date holds. To the events list, trends and saved insights, with the `*` key.
  const hogqlBomb = (): string =>
    pick([
      () => `${'-'.repeat(int(1_200))}1 = 1`,
      () => `${Array.from({ length: 1 + int(900) }, () => '1').join(pick(['+', '*', '-', ' AND ', ' OR ', ' = ']))} = 1`,
      () => {
        const depth = int(300)
        return `${`${pick(['abs', 'lower', 'toString', 'coalesce'])}(`.repeat(depth)}1${')'.repeat(depth)} = 1`
      },
      () => `${'NOT '.repeat(int(600))}1 = 1`,
      () =>
        `${pick(['toString', 'constructor', 'valueOf', 'hasOwnProperty', '__proto__', 'toLocaleString', 'isPrototypeOf'])}(properties.a) = 'x'`,
      () => `${pick(['properties', 'person.properties'])}.${pick(['__proto__', 'constructor', 'toString'])} = 1`,
      () => pick(['1 % 0 = 1', '1 / 0 = 1', 'toInt(properties.a) % 0 = 1', 'properties.a % 0 = 1', '-1 % 0 = 0', 'round(1, 99999999) = 1']),
      () => `properties.a = ${pick([bigLiteral(), '99999999999999999999.5', '0.' + '9'.repeat(400)])}`,
      () => `${pick(['sleep', 'file', 'url', 'system', 'rand', 'arrayJoin', 'remote'])}(1) = 1`,
      () => `${pick(['team_id', 'events', 'hasOwnProperty', '__proto__', 'person.id', 'session.__proto__'])} = 1`,
    ])()
  const manyValues = () => Array.from({ length: pick([201, 1_000, 6_000]) }, (_, i) => `^v${i}$`)
  const hostileFilter = (): unknown =>
    pick([
      () => ({ type: 'hogql', key: hogqlBomb() }),
      () => ({ type: 'group', key: 'industry', value: 'x', group_type_index: pick([99, -1, 1.5, 5, '0) OR (1', null, big()]) }),
      () => ({
        key: 'a',
        operator: pick(['regex', 'not_regex', 'icontains', 'not_icontains', 'gt', 'exact', 'is_not']),
        value: manyValues(),
      }),
      () => ({ key: 'a', operator: pick(['gt', 'lt', 'between']), value: pick([big(), 1e308, -1e308, [big(), big()]]) }),
    ])()
  const query = (projectId: number): FuzzRequest => {
    const headers = { authorization: `Bearer ${keys.personalKey}`, 'content-type': 'application/json' }
    const base = `/api/projects/${projectId}`
    const filters = Array.from({ length: 1 + int(2) }, hostileFilter)
    const trend = () => ({
      events: [
        chance(0.3)
          ? { id: 'x', math: 'hogql', math_hogql: pick(['sum(1 % 0)', `sum(${'-'.repeat(int(900))}1)`, 'sum(toString(1))']) }
          : { id: 'x' },
      ],
      properties: filters,
      ...(chance(0.3) ? { breakdown: hogqlBomb().replace(/ = .*$/, ''), breakdown_type: 'hogql' } : {}),
      ...(chance(0.2) ? { date_from: pick(['-99999999999999999999d', '-99999999999999999999h', `-${bigLiteral()}y`, '0000-00-00']) } : {}),
    })
    return pick([
      (): FuzzRequest => ({
        what: 'GET /events/ (hostile filter)',
        kind: 'query',
        method: 'GET',
        path: `${base}/events/?properties=${percentEncoded(jsonText(filters.slice(0, 1)))}`,
        headers,
      }),
      (): FuzzRequest => ({
        what: 'POST /insights/trend/ (hostile query)',
        kind: 'query',
        method: 'POST',
        path: `${base}/insights/trend/`,
        headers,
        body: Buffer.from(jsonText(trend())),
      }),
      (): FuzzRequest => ({
        what: 'POST /insights/ (hostile filters)',
        kind: 'query',
        method: 'POST',
        path: `${base}/insights/`,
        headers,
        body: Buffer.from(jsonText({ name: 'fuzz', filters: trend() })),
      }),
    ])()
  }

  // Many concurrent bodies of several MB to /batch/ and /s/: most with a token no project has (decoded and
  // parsed in full, then refused), some stored; plain or gzip, some near or past the 20 MiB limit.
  const large = (size: number): FuzzRequest => {
    const toSnapshots = chance(0.5)
    const token = chance(0.35) ? keys.projectKey : 'phc_fuzz_no_such_project'
    const at = epoch - int(3_600_000)
    let json: string
    if (toSnapshots) {
      const session = { token, sessionId: `fuzz-large-${int(10)}`, distinctId: 'fuzz-large' }
      json = JSON.stringify(snapshotBatch(session, [pageLoad(at, { bytes: size - 1_000 })]))
    } else {
      const events = 1 + int(20)
      const blob = 'x'.repeat(Math.max(0, Math.floor(size / events) - 200))
      const batch = Array.from({ length: events }, (_, i) => ({ event: 'large', distinct_id: `fuzz-large-${i}`, properties: { blob } }))
      json = JSON.stringify({ api_key: token, batch })
    }
    const gzip = chance(0.3)
    const path = toSnapshots ? '/s/' : '/batch/'
    return {
      what: `POST ${path} (${(json.length / MiB).toFixed(1)} MiB${gzip ? ' gzip' : ''}, ${token === keys.projectKey ? 'stored' : 'refused token'})`,
      kind: 'burst',
      method: 'POST',
      path: path + (gzip ? '?compression=gzip-js' : ''),
      headers: { 'content-type': 'application/json' },
      body: gzip ? gzipSync(json) : Buffer.from(json),
    }
  }
  const burst = (): FuzzRequest => {
    const parts = Array.from({ length: 8 + int(9) }, () => large(pick(opts.burstSizes ?? BURST_SIZES)))
    return { what: `burst of ${parts.length} large bodies`, kind: 'burst', method: 'POST', path: '', headers: {}, burst: parts }
  }

  // Every parameter the request has, and a few a route reads, sent again with other values (and as name[]).
  const repeatParameters = (path: string): string => {
    const at = path.indexOf('?')
    const base = at < 0 ? path : path.slice(0, at)
    const pairs = at < 0 ? [] : path.slice(at + 1).split('&')
    const values = () => pick(['', 'x', '1', '-1', bigLiteral(), 'gzip', 'lz64', 'base64', 'json', 'csv', '%00', '[]', 'a'.repeat(100)])
    const extra = pairs.map((pair) => `${pair.split('=')[0]}=${values()}`)
    for (const name of Array.from({ length: 1 + int(3) }, () => pick(REPEATABLE)))
      extra.push(
        ...Array.from({ length: 2 + int(2) }, () => (chance(0.2) ? `${name}[]=${values()}` : chance(0.1) ? name : `${name}=${values()}`)),
      )
    return `${base}?${[...pairs, ...extra].join('&')}`
  }

  const next = (): FuzzRequest => {
    const kind = int(100)
    if (kind < 34) {
      const path = pick(CAPTURE_PATHS)
      let payload = capturePayload()
      if (chance(0.3)) payload = wrongType(payload)
      const json = jsonText(payload)
      if (chance(0.15)) {
        // GET ?data= (old SDKs and beacons)
        const data = chance(0.5)
          ? Buffer.from(json).toString('base64')
          : encodeURIComponent(chance(0.2) ? json.slice(0, int(json.length)).replace(/[\ud800-\udbff]$/, '') : json)
        const query = `?data=${data.slice(0, 6_000)}${chance(0.3) ? `&compression=${pick(['base64', 'lz64', 'gzip'])}` : ''}${chance(0.3) ? `&ip=1&_=${pick(['1700000000000', 'x', '-5'])}` : ''}${chance(0.2) ? '&beacon=1' : ''}`
        return { what: `GET ${path} ?data=`, kind: 'capture', method: 'GET', path: path + query, headers: {} }
      } else {
        const e = encode(json, true)
        return { what: `POST ${path} (${e.how})`, kind: 'capture', method: 'POST', path: path + e.query, headers: e.headers, body: e.body }
      }
    } else if (kind < 42) {
      return snapshots()
    } else if (kind < 60) {
      const path = pick(DECIDE_PATHS)
      let payload = decidePayload()
      if (chance(0.3)) payload = wrongType(payload)
      const e = encode(jsonText(payload), false)
      const query = e.query ? (path.includes('?') ? '&' + e.query.slice(1) : e.query) : ''
      return { what: `POST ${path} (${e.how})`, kind: 'decide', method: 'POST', path: path + query, headers: e.headers, body: e.body }
    } else if (kind < 67) {
      const suffix = pick(['config', 'config.js'])
      return {
        what: `GET /array/:token/${suffix}`,
        kind: 'config',
        method: 'GET',
        path: `/array/${tokens()}/${suffix}${chance(0.2) ? '?x=' + tokens() : ''}`,
        headers: {},
      }
    } else if (kind < 73) {
      const auth = pick([
        `Bearer ${keys.personalKey}`,
        `Bearer ${keys.projectKey}`,
        'Bearer ',
        'Bearer phx_nope',
        'Basic abc',
        keys.personalKey,
        '',
      ])
      const path = pick(['/api/feature_flag/local_evaluation/', '/api/feature_flag/local_evaluation', '/flags/definitions'])
      const query = chance(0.5) ? `?token=${tokens()}${chance(0.3) ? '&send_cohorts' : ''}` : ''
      return {
        what: `GET ${path} (${auth.slice(0, 12)})`,
        kind: 'local-evaluation',
        method: 'GET',
        path: path + query,
        headers: { ...(auth ? { authorization: auth } : {}), ...(chance(0.2) ? { 'if-none-match': pick(['*', 'W/"x"', '"', '']) } : {}) },
      }
    } else if (kind < 77 && keys.management) {
      return query(keys.management.projectId)
    } else if (kind < 91 && keys.management) {
      return management(keys.management)
    } else if (kind < 95) {
      // Methods and paths the routes do not take, and OPTIONS without CORS headers.
      const path = pick([
        ...CAPTURE_PATHS,
        ...DECIDE_PATHS,
        '/array/x/config',
        '/api/feature_flag/local_evaluation/',
        '/e/%zz',
        '/decide/%',
        '/' + 'a'.repeat(5_000),
      ])
      const method = pick(['GET', 'PUT', 'DELETE', 'OPTIONS'] as const)
      return {
        what: `${method} ${path.slice(0, 40)}`,
        kind: 'methods',
        method,
        path,
        headers: chance(0.5) ? { origin: pick(['https://x.example', 'null', '']) } : {},
      }
    } else {
      // Malformed HTTP on a raw socket.
      const raw = pick([
        () => `POST /e/ HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n{"a":1}GARBAGE\r\n\r\n`,
        () => `GET /e/ HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n`,
        () => `GET /e/\u0001 HTTP/1.1\r\nHost: x\r\n\r\n`,
        () => `POST /batch/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nxx\r\n0\r\n\r\n`,
        () => `POST /decide/ HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd`,
        () => `${randomBytes(40).toString('latin1')}\r\n\r\n`,
        () => `GET /_health HTTP/1.1\r\nHost: x\r\nX: ${'y'.repeat(20_000)}\r\n\r\n`,
      ])()
      return {
        what: `raw: ${JSON.stringify(raw.slice(0, 30))}`,
        kind: 'raw',
        method: 'POST',
        path: '',
        headers: {},
        raw: Buffer.from(raw, 'latin1'),
      }
    }
  }

  for (let n = 0; n < count; n++) {
    if (opts.burstEvery && n > 0 && n % opts.burstEvery === 0) yield burst()
    const req = next()
    yield chance(0.12) && !req.raw ? { ...req, what: `${req.what} (repeated parameters)`, path: repeatParameters(req.path) } : req
  }
}

/** encodeURIComponent, but a lone surrogate (which it throws on) goes as the invalid UTF-8 of one. */
function percentEncoded(text: string): string {
  try {
    return encodeURIComponent(text)
  } catch {
    return encodeURIComponent(text.replace(/[\ud800-\udfff]/g, '')) + '%ED%A0%80'
  }
}

export interface FuzzAnswer {
  status: number
  contentType: string | null
  retryAfter?: string | null
  body: string
}

/** Sends one fuzz request; null when the server closed a raw connection without answering (allowed for malformed HTTP). */
export async function sendFuzz(url: string, req: FuzzRequest): Promise<FuzzAnswer | null> {
  if (req.raw) return sendRaw(url, req.raw)
  const res = await fetch(url + req.path, {
    method: req.method,
    headers: req.headers,
    // The buffer itself, not a copy: a burst holds many MB.
    body: req.body && req.method !== 'GET' ? (req.body as Uint8Array<ArrayBuffer>) : undefined,
  })
  const text = await res.text()
  return { status: res.status, contentType: res.headers.get('content-type'), retryAfter: res.headers.get('retry-after'), body: text }
}

function sendRaw(url: string, bytes: Buffer): Promise<FuzzAnswer | null> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname)
    let response = ''
    socket.setTimeout(10_000, () => socket.destroy())
    socket.on('data', (d: Buffer) => (response += d.toString('latin1')))
    socket.on('error', () => {})
    socket.on('close', () => {
      const m = /^HTTP\/1\.1 (\d{3})[^\r]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(response)
      if (!m) return resolve(null)
      const type = /^content-type:\s*(.*)$/im.exec(m[2])?.[1] ?? null
      const retryAfter = /^retry-after:\s*(.*)$/im.exec(m[2])?.[1] ?? null
      // Only the first response (a pipelined garbage request may add a second).
      const length = Number(/^content-length:\s*(\d+)$/im.exec(m[2])?.[1] ?? m[3].length)
      resolve({ status: Number(m[1]), contentType: type, retryAfter, body: m[3].slice(0, length) })
    })
    socket.end(bytes)
  })
}

/**
 * What a response must look like: no 5xx but a 503 with Retry-After (backpressure, the memory budget), and every
 * error a JSON {type, code, detail} body. Returns the problem, or null.
 */
export function problemWith(answer: FuzzAnswer): string | null {
  // 501 is how the AI routes say no model is configured (recordings/ai): deliberate, not a failure.
  const deliberate = (answer.status === 503 && answer.retryAfter) || (answer.status === 501 && answer.body.includes('"ai_not_configured"'))
  if (answer.status >= 500 && !deliberate) return `answered ${answer.status}: ${answer.body.slice(0, 300)}`
  if (answer.status < 400) return null
  if (!answer.contentType?.startsWith('application/json'))
    return `answered ${answer.status} as ${answer.contentType}: ${answer.body.slice(0, 200)}`
  let body: unknown
  try {
    body = JSON.parse(answer.body)
  } catch {
    return `answered ${answer.status} with a body that is not JSON: ${answer.body.slice(0, 200)}`
  }
  const b = body as Record<string, unknown>
  if (typeof b?.type !== 'string' || typeof b.code !== 'string' || typeof b.detail !== 'string')
    return `answered ${answer.status} without {type, code, detail}: ${answer.body.slice(0, 200)}`
  return null
}

export interface FuzzRun {
  problems: string[]
  statuses: Map<number, number>
  /** The statuses each kind of request got. */
  kinds: Map<FuzzKind, Map<number, number>>
  /** The highest resident set size of this process seen during the run (Wren runs in it), in bytes. */
  peakRss: number
}

/** Sends `count` requests of the seeded generator, `concurrency` at a time, and collects what is wrong with the answers. */
export async function runFuzz(
  url: string,
  keys: FuzzKeys,
  opts: FuzzOptions & { seed: number; count: number; concurrency: number; onProgress?: (sent: number) => void },
): Promise<FuzzRun> {
  const requests = fuzzRequests(opts.seed, keys, opts.count, opts)
  const run: FuzzRun = { problems: [], statuses: new Map(), kinds: new Map(), peakRss: process.memoryUsage.rss() }
  const sampleRss = () => (run.peakRss = Math.max(run.peakRss, process.memoryUsage.rss()))
  const sampler = setInterval(sampleRss, 100)
  let sent = 0
  const send = async (req: FuzzRequest) => {
    const answer = await sendFuzz(url, req).catch((err: unknown): FuzzAnswer => ({
      status: 0,
      contentType: null,
      body: `request failed: ${String(err)}`,
    }))
    if (++sent % 1_000 === 0) opts.onProgress?.(sent)
    if (answer === null) return // malformed HTTP closed without an answer
    run.statuses.set(answer.status, (run.statuses.get(answer.status) ?? 0) + 1)
    const ofKind = run.kinds.get(req.kind) ?? new Map<number, number>()
    run.kinds.set(req.kind, ofKind.set(answer.status, (ofKind.get(answer.status) ?? 0) + 1))
    const problem = answer.status === 0 ? answer.body : problemWith(answer)
    if (problem) run.problems.push(`${req.what} [${req.method} ${req.path.slice(0, 300)}]: ${problem}`)
  }
  const worker = async () => {
    for (let next = requests.next(); !next.done; next = requests.next()) {
      if (next.value.burst) await Promise.all(next.value.burst.map(send)).finally(sampleRss)
      else await send(next.value)
    }
  }
  try {
    await Promise.all(Array.from({ length: opts.concurrency }, worker))
  } finally {
    clearInterval(sampler)
  }
  return run
}

/**
 * After a run: a recording posthog-js sends (the project opted in again, as the fuzz may have changed that)
 * reads back whole from the snapshots API. False when it is not there within `timeoutMs`.
 */
export async function recordingStored(
  t: { url: string; projectId: number; projectKey: string; personalKey: string },
  timeoutMs = 30_000,
): Promise<boolean> {
  const headers = { authorization: `Bearer ${t.personalKey}`, 'content-type': 'application/json' }
  const base = `${t.url}/api/projects/${t.projectId}`
  await fetch(`${base}/`, { method: 'PATCH', headers, body: JSON.stringify({ session_recording_opt_in: true }) })
  const sessionId = `after-fuzz-${Date.now()}`
  const at = Date.now()
  const events = [...pageLoad(at, { compressed: true }), ...interactions(at + 10, 5, { compressed: true })]
  const { path, body } = posthogJsRequest(snapshotBatch({ token: t.projectKey, sessionId, distinctId: 'fuzz-survivor' }, [events]))
  if ((await fetch(t.url + path, { method: 'POST', body: new Uint8Array(body) })).status !== 200) return false
  const snapshots = `${base}/session_recordings/${sessionId}/snapshots`
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    const listed = await fetch(snapshots, { headers })
    if (listed.status !== 200) continue
    const sources = ((await listed.json()) as { sources: unknown[] }).sources.length
    const blob = await fetch(`${snapshots}?source=blob_v2&start_blob_key=0&end_blob_key=${sources - 1}`, { headers })
    const lines = (await blob.text()).trimEnd().split('\n')
    if (lines.length >= events.length) return true
  }
  return false
}
