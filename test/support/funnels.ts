// Helpers for the funnel cases ported from PostHog's funnel tests: one Wren per file, one project per case
// (so each case's events, persons, actions, cohorts, groups and timezone are its own, exactly as PostHog's
// test creates them), events captured with their historical timestamps, and the Query API asked as the app asks.
import { expect } from 'vitest'
import { api, captureBatch, drained, type TestWren } from './wren'

export type Props = Record<string, unknown>
/** One event of a journey: its name, when, and its properties. */
export interface Step {
  event: string
  at: string
  properties?: Props
}

/** `Pay $10` button and `/movie` link clicks, as autocapture sends them (PostHog's `_pay_event` / `_movie_event`). */
export const PAY_CHAIN = 'button:nth-child="0"nth-of-type="1"text="Pay $10"'
export const MOVIE_CHAIN = 'a:href="/movie"nth-child="0"nth-of-type="1"'

/** Seconds after `base` as an ISO timestamp: for PostHog cases whose events carry no timestamp (created in order, at "now"). */
export function tick(base: string, seconds: number): string {
  return new Date(Date.parse(base) + seconds * 1000).toISOString()
}

export interface FunnelCase {
  id: number
  token: string
  /** Captures these events (in the given order) and waits until they are queryable. */
  capture(events: Array<{ distinct_id: string } & Step>): Promise<void>
  /** Persons made up front: several distinct ids merged into one, and person properties, set long before any case's dates. */
  persons(list: Array<{ ids: string[]; properties?: Props }>): Promise<void>
  /** Journeys keyed by distinct id (PostHog's journeys_for), captured in one batch. */
  journeys(byPerson: Record<string, Step[]>): Promise<void>
  /** POST /query/ with this body; expects 200 and gives the body. */
  query(body: Props): Promise<any>
  /** A FunnelsQuery's results. */
  funnel(q: Props): Promise<any>
  /** The result of a saved insight of these legacy `insight: FUNNELS` filters, as PostHog's tests write them. */
  saved(filters: Props): Promise<any>
  /** The persons (each as its sorted distinct ids joined by ',') a FunnelsActorsQuery lists, sorted. */
  actors(source: Props, funnelStep: number, extra?: Props): Promise<string[]>
  /** Creates an action of these steps and gives its id. */
  action(name: string, steps: Props[]): Promise<number>
  /** Creates a cohort and gives its id. */
  cohort(body: Props): Promise<number>
  call: ReturnType<typeof api>
}

const LONG_AGO = '2019-06-01T00:00:00Z'

/** A fresh project in the shared Wren, with the helpers above bound to it. */
export async function funnelCase(t: TestWren, name: string, settings: Props = {}): Promise<FunnelCase> {
  const call = api(t)
  const created = await call('POST', '/api/projects/', { name })
  expect(created.status, created.text).toBe(201)
  const { id, api_token: token } = created.body
  if (Object.keys(settings).length) {
    const patched = await call('PATCH', `/api/projects/${id}/`, settings)
    expect(patched.status, patched.text).toBe(200)
  }
  const capture = async (events: Array<{ distinct_id: string } & Step>) => {
    await captureBatch(
      { url: t.url, projectKey: token },
      events.map((e) => ({ event: e.event, distinct_id: e.distinct_id, timestamp: e.at, properties: e.properties ?? {} })),
    )
    await drained(t.wren)
  }
  const query = async (body: Props) => {
    const res = await call('POST', `/api/environments/${id}/query/`, { query: body })
    expect(res.status, `${JSON.stringify(body)} → ${res.text}`).toBe(200)
    return res.body
  }
  const funnel = async (q: Props) => (await query({ kind: 'FunnelsQuery', ...q })).results
  return {
    id,
    token,
    call,
    capture,
    async persons(list) {
      const events: Array<{ distinct_id: string } & Step> = []
      for (const p of list) {
        const [main, ...others] = p.ids
        events.push({ event: '$set', distinct_id: main, at: LONG_AGO, properties: { $set: p.properties ?? {} } })
        for (const other of others) events.push({ event: '$create_alias', distinct_id: main, at: LONG_AGO, properties: { alias: other } })
      }
      await capture(events)
    },
    async journeys(byPerson) {
      await capture(Object.entries(byPerson).flatMap(([distinct_id, steps]) => steps.map((s) => ({ distinct_id, ...s }))))
    },
    query,
    funnel,
    async saved(filters) {
      const created = await call('POST', `/api/projects/${id}/insights/`, { name: 'funnel', filters: { insight: 'FUNNELS', ...filters } })
      expect(created.status, created.text).toBe(201)
      const read = await call('GET', `/api/projects/${id}/insights/${created.body.id}/`)
      expect(read.status, read.text).toBe(200)
      return read.body.result
    },
    async actors(source, funnelStep, extra = {}) {
      const body = await query({
        kind: 'ActorsQuery',
        select: ['person'],
        source: { kind: 'FunnelsActorsQuery', funnelStep, ...extra, source: { kind: 'FunnelsQuery', ...source } },
      })
      return body.results.map((row: any[]) => [...row[0].distinct_ids].sort().join(',')).sort()
    },
    async action(actionName, steps) {
      const res = await call('POST', `/api/projects/${id}/actions/`, { name: actionName, steps })
      expect(res.status, res.text).toBe(201)
      return res.body.id
    },
    async cohort(body) {
      const res = await call('POST', `/api/projects/${id}/cohorts/`, body)
      expect(res.status, res.text).toBe(201)
      return res.body.id
    },
  }
}

/** Each step's count, in order. */
export const counts = (steps: Array<{ count: number }>) => steps.map((s) => s.count)
/** Each step's name, in order. */
export const names = (steps: Array<{ name: string | null }>) => steps.map((s) => s.name)
