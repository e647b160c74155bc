// Helpers for the paths cases ported from PostHog's paths tests: one Wren per file, one project per case (its
// own events, persons and settings, as PostHog's test creates them), every case's events sent in one batch per
// project and ingested with ONE drain, and the Query API asked as the app asks.
import { expect } from 'vitest'
import { api, captureBatch, drained, type TestWren } from './wren'

export type Props = Record<string, unknown>
export interface Captured {
  event: string
  distinct_id: string
  at: string
  properties?: Props
}

/** Persons with several distinct ids are merged, and person properties set, at this time: before any case's dates. */
const LONG_AGO = '2000-01-01T00:00:00Z'

/** A page view of `url` (PostHog's `$current_url`). */
export const pageview = (distinct_id: string, url: string, at: string, properties: Props = {}): Captured => ({
  event: '$pageview',
  distinct_id,
  at,
  properties: { $current_url: url, ...properties },
})
/** A screen view of `name` (PostHog's `$screen_name`). */
export const screen = (distinct_id: string, name: string, at: string, properties: Props = {}): Captured => ({
  event: '$screen',
  distinct_id,
  at,
  properties: { $screen_name: name, ...properties },
})
export const custom = (distinct_id: string, event: string, at: string, properties: Props = {}): Captured => ({
  event,
  distinct_id,
  at,
  properties,
})

/** Seconds after `base`, as ISO: for PostHog cases whose events carry no timestamp (created in order, at "now"). */
export const tick = (base: string, seconds: number) => new Date(Date.parse(base) + seconds * 1000).toISOString()

export interface Link {
  source: string
  target: string
  value: number
  average_conversion_time: number
}

export interface PathsCase {
  id: number
  /** Events to send with the others (sent by sendAll). */
  events: Captured[]
  /** A person of several distinct ids and these properties. */
  person(ids: string[], properties?: Props): void
  /** POST /query/ with this body; expects 200 and gives the body. */
  query(body: Props): Promise<any>
  /** A PathsQuery's edges. */
  paths(q: Props): Promise<Link[]>
  /** The persons (each as its sorted distinct ids joined by ',') an InsightActorsQuery over these paths lists, sorted. */
  actors(q: Props, keys: { pathStartKey?: string; pathEndKey?: string; pathDropoffKey?: string }): Promise<string[]>
  call: ReturnType<typeof api>
}

/** Fresh projects in the shared Wren, one per name, with `settings` PATCHed onto each asked for. */
export async function pathsCases<N extends string>(t: TestWren, names: readonly N[], settings: Partial<Record<N, Props>> = {}) {
  const call = api(t)
  const cases = {} as Record<N, PathsCase>
  for (const name of names) {
    const created = await call('POST', '/api/projects/', { name })
    expect(created.status, created.text).toBe(201)
    const { id } = created.body
    // PostHog's test team: persons whose email has @posthog.com are test accounts.
    const patched = await call('PATCH', `/api/projects/${id}/`, {
      test_account_filters: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }],
      ...settings[name],
    })
    expect(patched.status, patched.text).toBe(200)
    const query = async (body: Props) => {
      const res = await call('POST', `/api/environments/${id}/query/`, { query: body })
      expect(res.status, `${JSON.stringify(body)} → ${res.text}`).toBe(200)
      return res.body
    }
    const events: Captured[] = []
    cases[name] = {
      id,
      events,
      call,
      person(ids, properties = {}) {
        const [main, ...others] = ids
        events.unshift(
          { event: '$set', distinct_id: main, at: LONG_AGO, properties: { $set: properties } },
          ...others.map((alias) => ({ event: '$create_alias', distinct_id: main, at: LONG_AGO, properties: { alias } })),
        )
      },
      query,
      paths: async (q) => (await query({ kind: 'PathsQuery', ...q })).results,
      async actors(q, keys) {
        const pathsFilter = { ...((q.pathsFilter as Props | undefined) ?? {}), ...keys }
        const body = await query({
          kind: 'ActorsQuery',
          select: ['person'],
          source: { kind: 'InsightActorsQuery', source: { kind: 'PathsQuery', ...q, pathsFilter } },
        })
        return body.results.map((row: any[]) => [...row[0].distinct_ids].sort().join(',')).sort()
      },
    }
  }
  return {
    cases,
    /** Sends every case's events (one batch per project) and waits once for all to be ingested. */
    async sendAll() {
      const tokens = new Map<number, string>()
      for (const c of Object.values<PathsCase>(cases)) {
        if (!c.events.length) continue
        if (!tokens.has(c.id)) tokens.set(c.id, (await call('GET', `/api/projects/${c.id}/`)).body.api_token)
        await captureBatch(
          { url: t.url, projectKey: tokens.get(c.id)! },
          c.events.map((e) => ({ event: e.event, distinct_id: e.distinct_id, timestamp: e.at, properties: e.properties ?? {} })),
        )
      }
      await drained(t.wren)
    },
  }
}

/** Each edge as "source → target ×value". */
export const edges = (links: Link[]) => links.map((l) => `${l.source} → ${l.target} ×${l.value}`)
