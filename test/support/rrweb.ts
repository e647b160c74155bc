// Session-recording payloads shaped as posthog-js sends them to /s/: rrweb events (meta, full snapshot with a
// DOM tree, mouse moves, mutations, custom and console-plugin events), optionally compressed per event the
// way posthog-js's recorder does (`cv: '2024-10'`: the event's data gzipped into a latin1 string), wrapped in
// `$snapshot` events and posted gzipped with `?compression=gzip-js`. Used by the fuzz generator and the
// crash trials.
import { gzipSync } from 'node:zlib'

export type RrwebEvent = { type: number; timestamp: number; data: unknown; cv?: string }

/** posthog-js's gzipToString: the gzip bytes of the JSON, one latin1 character per byte. */
function gzipToString(value: unknown): string {
  return gzipSync(Buffer.from(JSON.stringify(value))).toString('latin1')
}

/** A page's DOM as rrweb serializes it: `nodes` elements with text, and `padding` bytes of inline CSS. */
function documentNode(nodes: number, padding: number): unknown {
  let id = 10
  const body = Array.from({ length: nodes }, (_, i) => ({
    type: 2,
    tagName: i % 3 === 0 ? 'button' : 'div',
    attributes: { class: `c${i % 17}`, 'data-i': String(i) },
    childNodes: [{ type: 3, textContent: `item ${i} — ünïcode ✓`, id: id++ }],
    id: id++,
  }))
  const style = {
    type: 2,
    tagName: 'style',
    attributes: { _cssText: `.x{background:url(data:image/png;base64,${'A'.repeat(padding)})}` },
    childNodes: [],
    id: id++,
  }
  return {
    type: 0,
    childNodes: [
      { type: 1, name: 'html', publicId: '', systemId: '', id: 2 },
      {
        type: 2,
        tagName: 'html',
        attributes: { lang: 'en' },
        childNodes: [
          { type: 2, tagName: 'head', attributes: {}, childNodes: [style], id: 4 },
          { type: 2, tagName: 'body', attributes: {}, childNodes: body, id: 5 },
        ],
        id: 3,
      },
    ],
    id: 1,
  }
}

/** The events a page load records: meta, then the full snapshot (of about `bytes` of JSON). */
export function pageLoad(timestamp: number, opts: { bytes?: number; compressed?: boolean } = {}): RrwebEvent[] {
  const padding = Math.max(0, (opts.bytes ?? 4_000) - 3_000)
  const node = documentNode(20, padding)
  const full: RrwebEvent = { type: 2, timestamp: timestamp + 1, data: { node, initialOffset: { left: 0, top: 0 } } }
  return [
    { type: 4, timestamp, data: { href: 'https://fuzz.example/page', width: 1280, height: 800 } },
    opts.compressed ? { ...full, cv: '2024-10', data: gzipToString(full.data) } : full,
  ]
}

/** What a user does after the page loaded: `count` events, each one of rrweb's incremental kinds. */
export function interactions(timestamp: number, count: number, opts: { compressed?: boolean } = {}): RrwebEvent[] {
  return Array.from({ length: count }, (_, i): RrwebEvent => {
    const at = timestamp + i
    switch (i % 5) {
      case 0:
        return { type: 3, timestamp: at, data: { source: 1, positions: [{ x: i, y: 2 * i, id: 11, timeOffset: 0 }] } }
      case 1: {
        const mutation = { texts: [{ id: 11, value: `text ${i}` }], attributes: [], removes: [], adds: [] }
        if (!opts.compressed) return { type: 3, timestamp: at, data: { source: 0, ...mutation } }
        const packed = Object.fromEntries(Object.entries(mutation).map(([k, v]) => [k, gzipToString(v)]))
        return { type: 3, timestamp: at, cv: '2024-10', data: { source: 0, ...packed } }
      }
      case 2:
        return { type: 3, timestamp: at, data: { source: 2, type: 2, id: 12, x: 5, y: 6 } }
      case 3:
        return { type: 5, timestamp: at, data: { tag: '$pageview', payload: { href: 'https://fuzz.example/next' } } }
      default:
        return {
          type: 6,
          timestamp: at,
          data: { plugin: 'rrweb/console@1', payload: { level: 'log', payload: [`"log ${i}"`], trace: [] } },
        }
    }
  })
}

/** The body posthog-js posts to /s/: one `$snapshot` event per chunk of rrweb events, all of one session. */
export function snapshotBatch(
  to: { token: string; sessionId: string; windowId?: string; distinctId: string },
  chunks: RrwebEvent[][],
): Array<Record<string, unknown>> {
  return chunks.map((events) => ({
    event: '$snapshot',
    properties: {
      $snapshot_data: events,
      $session_id: to.sessionId,
      $window_id: to.windowId ?? `${to.sessionId}-w`,
      $snapshot_bytes: JSON.stringify(events).length,
      $lib: 'web',
      $lib_version: '1.449.2',
      distinct_id: to.distinctId,
      token: to.token,
    },
  }))
}

/** posthog-js's request: gzip, hinted in the query string, with its cache-busting and version parameters. */
export function posthogJsRequest(batch: unknown, now = Date.now()): { path: string; body: Buffer } {
  return { path: `/s/?compression=gzip-js&ip=0&_=${now}&ver=1.449.2`, body: gzipSync(Buffer.from(JSON.stringify(batch))) }
}
