// Reading a project's whole event list page by page, as clients of PostHog's events endpoint do: by
// `offset` (a data-pipeline connector steps `offset` by its page size inside a 30-day `after`/`before`
// slice until a page comes back short) and by following `next`. Either way every event is read exactly
// once, in the list's order (newest first, events of one instant by uuid).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'

const DAY = 86_400_000

describe('paging the events list', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let events: string
  const now = Date.now()
  /** The slice a connector asks for: the last 30 days. */
  const slice = `after=${new Date(now - 30 * DAY).toISOString()}&before=${new Date(now + 60_000).toISOString()}`

  const page = async (query: string): Promise<{ next: string | null; ids: string[] }> => {
    const res = await call('GET', `${events}?${query}`)
    expect(res.status, `${query}: ${res.text.slice(0, 200)}`).toBe(200)
    return { next: res.body.next, ids: res.body.results.map((e: { id: string }) => e.id) }
  }
  /** Every event of `query`, stepping `offset` by `limit` until a page comes back short (or `most` requests). */
  const byOffset = async (query: string, limit: number, most = 100): Promise<{ ids: string[]; requests: number }> => {
    const ids: string[] = []
    for (let offset = 0, requests = 1; ; offset += limit, requests++) {
      const { ids: got } = await page(`${query}&limit=${limit}&offset=${offset}`)
      ids.push(...got)
      if (got.length < limit) return { ids, requests }
      if (requests >= most) throw new Error(`offset paging does not end in ${most} requests`)
    }
  }
  const byNext = async (query: string, limit: number): Promise<string[]> => {
    const ids: string[] = []
    for (let next: string | null = `${events}?${query}&limit=${limit}`, pages = 0; next; pages++) {
      if (pages > 100) throw new Error('next paging does not end')
      const url: URL = new URL(next, t.url)
      const res = await call('GET', url.pathname + url.search)
      expect(res.status, res.text.slice(0, 200)).toBe(200)
      ids.push(...res.body.results.map((e: { id: string }) => e.id))
      next = res.body.next
    }
    return ids
  }

  beforeAll(async () => {
    t = await startWren()
    call = api(t)
    events = `/api/projects/${t.projectId}/events/`
    // 400 events over the last 20 days, four at each instant (so the order within an instant matters).
    await captureBatch(
      t,
      Array.from({ length: 400 }, (_, n) => ({
        event: n % 3 === 0 ? 'purchase' : '$pageview',
        distinct_id: `user-${n % 17}`,
        timestamp: new Date(now - 20 * DAY + Math.floor(n / 4) * 3_600_000).toISOString(),
        properties: { n },
      })),
    )
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('reads every event exactly once, in the same order, by offset and by next', async () => {
    const all = (await page(`${slice}&limit=10000`)).ids
    expect(all).toHaveLength(400)
    expect(new Set(all).size).toBe(400)
    for (const limit of [37, 100, 400]) {
      expect((await byOffset(slice, limit)).ids, `by offset, ${limit} a page`).toEqual(all)
      expect(await byNext(slice, limit), `by next, ${limit} a page`).toEqual(all)
    }
    // Without a slice, and with a filter: the same.
    expect((await byOffset('event=purchase', 25)).ids).toEqual((await page('event=purchase&limit=1000')).ids)
    expect((await byOffset('event=purchase', 25)).ids).toHaveLength(134)
  })

  it('links next from an offset page to the page after it', async () => {
    const all = (await page(`${slice}&limit=10000`)).ids
    const third = await page(`${slice}&limit=50&offset=100`)
    expect(third.ids).toEqual(all.slice(100, 150))
    const next = new URL(third.next!)
    expect(next.searchParams.get('offset')).toBeNull()
    expect(next.searchParams.get('after')).toBe(new URLSearchParams(slice).get('after'))
    expect((await page(next.search.slice(1))).ids).toEqual(all.slice(150, 200))
    expect((await page(`${slice}&limit=50&offset=400`)).ids).toEqual([])
  })

  it('refuses an offset past PostHog’s bound, or not a whole number, with a 400 naming offset', async () => {
    for (const offset of ['100001', '-1', 'abc', '2.5']) {
      const res = await call('GET', `${events}?offset=${offset}`)
      expect([res.status, res.body.attr, res.body.type], offset).toEqual([400, 'offset', 'validation_error'])
    }
    expect((await page('offset=100000')).ids).toEqual([])
  })

  it('reads a 25,000-event project once as the connector pages it: 10,000 a page by offset', async () => {
    const project = await call('POST', '/api/projects/', { name: 'Busy' })
    const busy = { url: t.url, projectKey: project.body.api_token as string }
    for (let batch = 0; batch < 5; batch++)
      await captureBatch(
        busy,
        Array.from({ length: 5000 }, (_, i) => {
          const n = batch * 5000 + i
          return { event: 'tick', distinct_id: `busy-${n % 500}`, timestamp: new Date(now - 25 * DAY + n * 60_000).toISOString() }
        }),
      )
    await drained(t.wren)
    const saved = events
    events = `/api/projects/${project.body.id}/events/`
    try {
      const { ids, requests } = await byOffset(slice, 10_000, 5)
      expect(requests).toBe(3)
      expect(ids).toHaveLength(25_000)
      expect(new Set(ids).size).toBe(25_000)
    } finally {
      events = saved
    }
  }, 60_000)
})
