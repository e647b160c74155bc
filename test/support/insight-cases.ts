// Helpers for insight cases ported from PostHog's tests (lifecycle, stickiness): one Wren per file, one project
// per case; every case's events are sent first (`send`, one batch per project) and drained once (`drained`),
// then each `it` only queries. Events carry their historical timestamps; a person is created by its first event
// (so its creation time is that event's), as PostHog's tests freeze time to create it.
import { expect } from 'vitest'
import { api, captureBatch, type TestWren } from './wren'

export type Props = Record<string, unknown>
export interface SentEvent {
  event: string
  distinct_id: string
  at: string
  properties?: Props
}

export interface InsightCase {
  id: number
  call: ReturnType<typeof api>
  /** Sends these events in one batch (in order); the caller drains once after every case has sent. */
  send(events: SentEvent[]): Promise<void>
  /** POST /query/ with this query node; expects 200 and gives the body. */
  query(node: Props): Promise<any>
  /** POST /query/ with this query node, as it answers. */
  ask(node: Props, extra?: Props): Promise<{ status: number; body: any; text: string }>
  /** The result of a saved insight with these legacy filters (read back as the app reads it). */
  saved(filters: Props): Promise<any>
  /** Creates an action of these steps and gives its id. */
  action(name: string, steps: Props[]): Promise<number>
  /** Creates a cohort and gives its id. */
  cohort(body: Props): Promise<number>
  /** The persons (each as its sorted distinct ids joined by ',') an ActorsQuery over this source lists, sorted. */
  actors(source: Props): Promise<string[]>
}

export async function insightCase(t: TestWren, name: string, settings: Props = {}): Promise<InsightCase> {
  const call = api(t)
  const created = await call('POST', '/api/projects/', { name })
  expect(created.status, created.text).toBe(201)
  const { id, api_token: token } = created.body
  if (Object.keys(settings).length) {
    const patched = await call('PATCH', `/api/projects/${id}/`, settings)
    expect(patched.status, patched.text).toBe(200)
  }
  const ask = async (node: Props, extra: Props = {}) => call('POST', `/api/environments/${id}/query/`, { query: node, ...extra })
  const query = async (node: Props) => {
    const res = await ask(node)
    expect(res.status, `${JSON.stringify(node)} → ${res.text}`).toBe(200)
    return res.body
  }
  return {
    id,
    call,
    ask,
    query,
    async send(events) {
      await captureBatch(
        { url: t.url, projectKey: token },
        events.map((e) => ({ event: e.event, distinct_id: e.distinct_id, timestamp: e.at, properties: e.properties ?? {} })),
      )
    },
    async saved(filters) {
      const made = await call('POST', `/api/projects/${id}/insights/`, { name: 'saved', filters })
      expect(made.status, made.text).toBe(201)
      const read = await call('GET', `/api/projects/${id}/insights/${made.body.id}/`)
      expect(read.status, read.text).toBe(200)
      return read.body.result
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
    async actors(source) {
      const body = await query({ kind: 'ActorsQuery', select: ['person'], source })
      return body.results.map((row: any[]) => [...row[0].distinct_ids].sort().join(',')).sort()
    },
  }
}

/**
 * PostHog's _create_events: per person, its events at these times (the first creates it, with `name` and for p1
 * the email test accounts are filtered by).
 */
export function personEvents(data: Array<[string, string[]]>, event = '$pageview'): SentEvent[] {
  return data.flatMap(([id, times]) =>
    times.map((at, i) => ({
      event,
      distinct_id: id,
      at,
      properties: i === 0 ? { $set: { name: id, ...(id === 'p1' ? { email: 'test@posthog.com' } : {}) } } : {},
    })),
  )
}
