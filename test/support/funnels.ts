// Helpers for the funnel cases ported from PostHog's funnel tests: one Wren per file, one project per case
// (so each case's events, persons, actions, cohorts, groups and timezone are its own, exactly as PostHog's
// test creates them), events captured with their historical timestamps, and the Query API asked as the app asks.
// The cases of a file set up together (./ported-cases.ts portedCases).
import { expect } from 'vitest'
import { projectCase, type Gathering, type ProjectCase, type Props } from './ported-cases'
import type { TestWren } from './wren'

export type { Props, Step } from './ported-cases'

/** `Pay $10` button and `/movie` link clicks, as autocapture sends them (PostHog's `_pay_event` / `_movie_event`). */
export const PAY_CHAIN = 'button:nth-child="0"nth-of-type="1"text="Pay $10"'
export const MOVIE_CHAIN = 'a:href="/movie"nth-child="0"nth-of-type="1"'

/** Seconds after `base` as an ISO timestamp: for PostHog cases whose events carry no timestamp (created in order, at "now"). */
export function tick(base: string, seconds: number): string {
  return new Date(Date.parse(base) + seconds * 1000).toISOString()
}

export interface FunnelCase extends ProjectCase {
  /** A FunnelsQuery's results. */
  funnel(q: Props): Promise<any>
  /** The result of a saved insight of these legacy `insight: FUNNELS` filters, as PostHog's tests write them. */
  saved(filters: Props): Promise<any>
  /** The persons (each as its sorted distinct ids joined by ',') a FunnelsActorsQuery lists, sorted. */
  actors(source: Props, funnelStep: number, extra?: Props): Promise<string[]>
}

/** A fresh project in the shared Wren, with the helpers above bound to it. */
export async function funnelCase(t: TestWren, name: string, settings: Props = {}, gathering?: Gathering): Promise<FunnelCase> {
  const c = await projectCase(t, name, settings, gathering)
  return {
    ...c,
    funnel: async (q) => (await c.query({ kind: 'FunnelsQuery', ...q })).results,
    async saved(filters) {
      const created = await c.call('POST', `/api/projects/${c.id}/insights/`, {
        name: 'funnel',
        filters: { insight: 'FUNNELS', ...filters },
      })
      expect(created.status, created.text).toBe(201)
      const read = await c.call('GET', `/api/projects/${c.id}/insights/${created.body.id}/`)
      expect(read.status, read.text).toBe(200)
      return read.body.result
    },
    async actors(source, funnelStep, extra = {}) {
      const body = await c.query({
        kind: 'ActorsQuery',
        select: ['person'],
        source: { kind: 'FunnelsActorsQuery', funnelStep, ...extra, source: { kind: 'FunnelsQuery', ...source } },
      })
      return body.results.map((row: any[]) => [...row[0].distinct_ids].sort().join(',')).sort()
    },
  }
}

/** Each step's count, in order. */
export const counts = (steps: Array<{ count: number }>) => steps.map((s) => s.count)
/** Each step's name, in order. */
export const names = (steps: Array<{ name: string | null }>) => steps.map((s) => s.name)
