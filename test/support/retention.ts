// Helpers for the retention cases ported from PostHog's retention tests: one Wren per file, one project per
// case (its persons, events, actions, cohorts and timezone its own, as PostHog's test makes them), every case's
// persons captured in one batch per project and then every case's events, with two drains for the whole file.
import { expect } from 'vitest'
import { api, captureBatch, drained, type TestWren } from './wren'

export type Props = Record<string, unknown>
/** One event: who, what, when (ISO), and its properties. */
export interface Sent {
  distinct_id: string
  event: string
  at: string
  properties?: Props
}

/**
 * PostHog's _date(day, hour=5, month=0, minute=0): 2020-06-10 plus days and months, at that hour, without an
 * offset (a query reads it in the project's timezone; an event is sent at it in the case's `offset`).
 */
export const date = (day: number, hour = 5, month = 0, minute = 0) =>
  new Date(Date.UTC(2020, 5 + month, 10 + day, hour, minute)).toISOString().slice(0, 19)

/** PostHog's pad: every cohort row as long as the longest (or `length`), with zeros for the intervals past the range. */
export const pad = (rows: number[][], length = Math.max(...rows.map((x) => x.length))) =>
  rows.map((r) => [...r, ...Array(length - r.length).fill(0)])

/** Each row's counts, in order. */
export const counts = (rows: Array<{ values: Array<{ count: number }> }>) => rows.map((r) => r.values.map((v) => v.count))
/** Each row's label. */
export const labels = (rows: Array<{ label: string }>) => rows.map((r) => r.label)

const LONG_AGO = '2019-01-01T00:00:00Z'

export interface RetentionCase {
  id: number
  call: ReturnType<typeof api>
  /** Persons made before any event: several distinct ids merged into one, and person properties. */
  persons(list: Array<{ ids: string[]; properties?: Props }>): void
  /**
   * PostHog's _create_events: `event` for each (distinct id, timestamp, properties); every even one of the
   * call also has $some_property = "value".
   */
  events(list: Array<[string, string, Props?]>, event?: string): void
  /** POST /query/ with this body; expects 200 and gives the body. */
  query(body: Props): Promise<any>
  /** A RetentionQuery's results (retentionFilter defaults to {}). */
  retention(q: Props): Promise<any[]>
  /** The persons of an ActorsQuery over an InsightActorsQuery on this retention query: [distinct ids sorted joined by ',', appearances]. */
  actors(q: Props, interval: number | null, extra?: Props): Promise<Array<[string, number[]]>>
  action(name: string, steps: Props[]): Promise<number>
  cohort(body: Props): Promise<number>
  /** What to capture: persons first, then events. */
  pending: { persons: Sent[]; events: Sent[] }
  token: string
}

export async function retentionCase(t: TestWren, name: string, settings: Props = {}, offset = 'Z'): Promise<RetentionCase> {
  const call = api(t)
  const created = await call('POST', '/api/projects/', { name })
  expect(created.status, created.text).toBe(201)
  const { id, api_token: token } = created.body
  if (Object.keys(settings).length) {
    const patched = await call('PATCH', `/api/projects/${id}/`, settings)
    expect(patched.status, patched.text).toBe(200)
  }
  const pending = { persons: [] as Sent[], events: [] as Sent[] }
  const query = async (body: Props) => {
    const res = await call('POST', `/api/environments/${id}/query/`, { query: body })
    expect(res.status, `${JSON.stringify(body)} → ${res.text}`).toBe(200)
    return res.body
  }
  const withFilter = (q: Props) => ({ kind: 'RetentionQuery', retentionFilter: {}, ...q })
  return {
    id,
    token,
    call,
    pending,
    persons(list) {
      for (const p of list) {
        const [main, ...others] = p.ids
        pending.persons.push({ event: '$set', distinct_id: main, at: LONG_AGO, properties: { $set: p.properties ?? {} } })
        for (const other of others)
          pending.persons.push({ event: '$create_alias', distinct_id: main, at: LONG_AGO, properties: { alias: other } })
      }
    },
    events(list, event = '$pageview') {
      list.forEach(([distinct_id, at, props], i) =>
        pending.events.push({
          distinct_id,
          event,
          at: at + offset,
          properties: { ...(i % 2 === 0 ? { $some_property: 'value' } : {}), ...props },
        }),
      )
    },
    query,
    retention: async (q) => (await query(withFilter(q))).results,
    async actors(q, interval, extra = {}) {
      const body = await query({
        kind: 'ActorsQuery',
        select: ['person', 'appearances'],
        source: { kind: 'InsightActorsQuery', interval, ...extra, source: withFilter(q) },
      })
      return body.results
        .map((row: any[]) => [[...row[0].distinct_ids].sort().join(','), row[1]] as [string, number[]])
        .sort((a: [string, number[]], b: [string, number[]]) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1))
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

/** Captures every case's persons (one batch each), waits, then every case's events, and waits once more. */
export async function captureAll(t: TestWren, cases: RetentionCase[]): Promise<void> {
  for (const phase of ['persons', 'events'] as const) {
    await Promise.all(
      cases
        .filter((c) => c.pending[phase].length)
        .map((c) =>
          captureBatch(
            { url: t.url, projectKey: c.token },
            c.pending[phase].map((e) => ({ event: e.event, distinct_id: e.distinct_id, timestamp: e.at, properties: e.properties ?? {} })),
          ),
        ),
    )
    await drained(t.wren)
  }
}
