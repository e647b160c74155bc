import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { RecordingMetadata, snapshotBatchFrom, type SnapshotBatch } from './metadata'
import { decompressEvent, EventType, IncrementalSource, MouseInteraction, type RrwebEvent } from './rrweb'

const T0 = Date.parse('2024-05-01T12:00:00.000Z')

const meta = (timestamp: number, href: string) => ({ type: EventType.Meta, timestamp, data: { href, width: 1280, height: 800 } })
const fullSnapshot = (timestamp: number) => ({ type: EventType.FullSnapshot, timestamp, data: { node: { type: 0, childNodes: [] } } })
const incremental = (timestamp: number, source: number, extra: Record<string, unknown> = {}) => ({
  type: EventType.IncrementalSnapshot,
  timestamp,
  data: { source, ...extra },
})
const interaction = (timestamp: number, type: number) =>
  incremental(timestamp, IncrementalSource.MouseInteraction, { type, id: 7, x: 1, y: 2 })
const mouseMove = (timestamp: number) =>
  incremental(timestamp, IncrementalSource.MouseMove, { positions: [{ x: 1, y: 2, id: 7, timeOffset: 0 }] })
const input = (timestamp: number, text: string) => incremental(timestamp, IncrementalSource.Input, { id: 9, text, isChecked: false })
const mutation = (timestamp: number) =>
  incremental(timestamp, IncrementalSource.Mutation, { texts: [], attributes: [], removes: [], adds: [] })
const consoleLog = (timestamp: number, level: string, ...payload: unknown[]) => ({
  type: EventType.Plugin,
  timestamp,
  data: { plugin: 'rrweb/console@1', payload: { level, payload, trace: [] } },
})

const batch = (events: unknown[], windowId = 'window-1', extra: Partial<SnapshotBatch> = {}): SnapshotBatch => ({
  windowId,
  events,
  snapshotSource: 'web',
  snapshotLibrary: 'web',
  ...extra,
})
const summaryOf = (...events: unknown[]) => RecordingMetadata.of([batch(events)]).summary()

// posthog-js's partial compression: JSON, gzipped with fflate, kept as a string of one char per byte.
const gzipToString = (value: unknown) => gzipSync(Buffer.from(JSON.stringify(value), 'utf8')).toString('latin1')

describe('recording metadata: clicks, keypresses, mouse activity', () => {
  it('counts click, double click, context menu and touch end as clicks', () => {
    const s = summaryOf(
      interaction(T0, MouseInteraction.Click),
      interaction(T0 + 100, MouseInteraction.DblClick),
      interaction(T0 + 200, MouseInteraction.ContextMenu),
      interaction(T0 + 300, MouseInteraction.TouchEnd),
    )
    expect(s.click_count).toBe(4)
    expect(s.mouse_activity_count).toBe(4)
  })

  it('does not count mouse down/up, focus, blur, touch start/move/cancel or mouse moves as clicks', () => {
    const s = summaryOf(
      interaction(T0, MouseInteraction.MouseDown),
      interaction(T0 + 10, MouseInteraction.MouseUp),
      interaction(T0 + 20, MouseInteraction.Focus),
      interaction(T0 + 30, MouseInteraction.Blur),
      interaction(T0 + 40, MouseInteraction.TouchStart),
      interaction(T0 + 50, MouseInteraction.TouchMoveDeparted),
      interaction(T0 + 60, MouseInteraction.TouchCancel),
      mouseMove(T0 + 70),
      incremental(T0 + 80, IncrementalSource.TouchMove, { positions: [] }),
    )
    expect(s.click_count).toBe(0)
    // every mouse interaction, mouse move and touch move is mouse activity
    expect(s.mouse_activity_count).toBe(9)
  })

  it('counts each input event as a keypress, and nothing else', () => {
    const s = summaryOf(
      input(T0, 'h'),
      input(T0 + 100, 'he'),
      input(T0 + 200, 'hel'),
      interaction(T0 + 300, MouseInteraction.Click),
      incremental(T0 + 400, IncrementalSource.Scroll, { id: 1, x: 0, y: 50 }),
    )
    expect(s.keypress_count).toBe(3)
    expect(s.click_count).toBe(1)
    expect(s.mouse_activity_count).toBe(1)
  })

  it('skips events without a positive timestamp or a numeric type', () => {
    const s = summaryOf(
      interaction(0, MouseInteraction.Click),
      { type: 'x', timestamp: T0 },
      { timestamp: T0 },
      null,
      interaction(T0, MouseInteraction.Click),
    )
    expect(s.click_count).toBe(1)
    expect(s.event_count).toBe(1)
  })
})

describe('recording metadata: active and inactive seconds (5 s segmentation)', () => {
  it('keeps one active segment across a gap of just under 5 s', () => {
    const s = summaryOf(mouseMove(T0), mouseMove(T0 + 4999), mouseMove(T0 + 9000))
    expect(s.active_seconds).toBe(9)
    expect(s.recording_duration).toBe(9)
    expect(s.inactive_seconds).toBe(0)
  })

  it('keeps one segment across a gap of exactly 5 s', () => {
    expect(summaryOf(mouseMove(T0), mouseMove(T0 + 5000)).active_seconds).toBe(5)
  })

  it('splits the activity at a gap of just over 5 s and counts the gap as inactive', () => {
    const s = summaryOf(mouseMove(T0), mouseMove(T0 + 2000), mouseMove(T0 + 7001), mouseMove(T0 + 10001))
    // [0, 2000] and [7001, 10001]
    expect(s.active_seconds).toBe(5)
    expect(s.recording_duration).toBe(10)
    expect(s.inactive_seconds).toBe(5)
  })

  it('lets inactive events within 5 s of the last activity extend it, and no further', () => {
    const s = summaryOf(
      fullSnapshot(T0 - 3000),
      interaction(T0, MouseInteraction.Click),
      mutation(T0 + 4000),
      mutation(T0 + 6000),
      mutation(T0 + 20000),
    )
    expect(s.active_seconds).toBe(4)
    expect(s.recording_duration).toBe(23)
    expect(s.inactive_seconds).toBe(19)
  })

  it('counts a lone active event as 1 ms and a recording without activity as 0', () => {
    expect(summaryOf(meta(T0, 'https://a.example/'), interaction(T0 + 10_000, MouseInteraction.Click)).active_seconds).toBe(0.001)
    const idle = summaryOf(meta(T0, 'https://a.example/'), fullSnapshot(T0), mutation(T0 + 30_000))
    expect(idle.active_seconds).toBe(0)
    expect(idle.inactive_seconds).toBe(30)
  })

  it('measures activity over all windows of the session together, in time order', () => {
    const s = RecordingMetadata.of([
      batch([mouseMove(T0), mouseMove(T0 + 8000)], 'window-a'),
      batch([mouseMove(T0 + 4000), mouseMove(T0 + 12_000)], 'window-b'),
    ]).summary()
    expect(s.active_seconds).toBe(12)
  })
})

describe('recording metadata: console logs', () => {
  it('counts levels as PostHog does and keeps distinct lines to search', () => {
    const metadata = RecordingMetadata.of([
      batch([
        consoleLog(T0, 'log', 'hello', 'world'),
        consoleLog(T0 + 1, 'info', 'info line'),
        consoleLog(T0 + 2, 'debug', 'debug line'),
        consoleLog(T0 + 3, 'count', 'default: 1'),
        consoleLog(T0 + 4, 'somethingNew', 'unknown level'),
        consoleLog(T0 + 5, 'warn', 'careful'),
        consoleLog(T0 + 6, 'countReset', 'reset'),
        consoleLog(T0 + 7, 'error', 'boom', { not: 'a string' }, 42),
        consoleLog(T0 + 8, 'assert', 'assertion failed'),
        consoleLog(T0 + 9, 'error', 'boom'),
        { type: EventType.Plugin, timestamp: T0 + 10, data: { plugin: 'rrweb/network@1', payload: { requests: [] } } },
      ]),
    ])
    const s = metadata.summary()
    expect([s.console_log_count, s.console_warn_count, s.console_error_count]).toEqual([5, 2, 3])
    expect(metadata.consoleEntries()).toEqual([
      { level: 'info', message: 'hello world', timestamp: T0 },
      { level: 'info', message: 'info line', timestamp: T0 + 1 },
      { level: 'info', message: 'debug line', timestamp: T0 + 2 },
      { level: 'info', message: 'default: 1', timestamp: T0 + 3 },
      { level: 'info', message: 'unknown level', timestamp: T0 + 4 },
      { level: 'warn', message: 'careful', timestamp: T0 + 5 },
      { level: 'warn', message: 'reset', timestamp: T0 + 6 },
      { level: 'error', message: 'boom', timestamp: T0 + 7 },
      { level: 'error', message: 'assertion failed', timestamp: T0 + 8 },
    ])
  })

  it('cuts each logged string to 2999 characters', () => {
    const metadata = RecordingMetadata.of([batch([consoleLog(T0, 'error', 'x'.repeat(5000), 'tail')])])
    expect(metadata.consoleEntries()[0].message).toBe('x'.repeat(2999) + ' tail')
  })
})

describe('recording metadata: urls, timestamps, source, size', () => {
  it('takes the start url from the earliest meta href and lists each url once', () => {
    const s = RecordingMetadata.of([
      batch([meta(T0 + 5000, 'https://shop.example/cart'), meta(T0 + 9000, ' https://shop.example/ ')]),
      batch([
        meta(T0, 'https://shop.example/?utm=1'),
        { type: EventType.Custom, timestamp: T0 + 100, data: { tag: '$pageview', payload: { href: 'https://shop.example/cart' } } },
      ]),
    ]).summary()
    expect(s.start_url).toBe('https://shop.example/?utm=1')
    expect(s.urls).toEqual(['https://shop.example/cart', 'https://shop.example/', 'https://shop.example/?utm=1'])
    expect(s.start_time).toBe('2024-05-01T12:00:00.000Z')
    expect(s.end_time).toBe('2024-05-01T12:00:09.000Z')
  })

  it('keeps the first 25 urls', () => {
    const s = summaryOf(...Array.from({ length: 30 }, (_, i) => meta(T0 + i, `https://a.example/${i}`)))
    expect(s.urls).toHaveLength(25)
    expect(s.urls.at(-1)).toBe('https://a.example/24')
  })

  it('reports the source and library of the first batch, web by default, and the bytes and events stored', () => {
    const events = [meta(T0, 'https://a.example/'), fullSnapshot(T0)]
    const s = RecordingMetadata.of([
      batch(events, 'w', { snapshotSource: null, snapshotLibrary: 'web' }),
      batch([mouseMove(T0 + 1)], 'w', { snapshotSource: 'mobile', snapshotLibrary: 'posthog-ios' }),
    ]).summary()
    expect(s.snapshot_source).toBe('web')
    expect(s.snapshot_library).toBe('web')
    const lines = [...events.map((e) => ['w', e]), ['w', mouseMove(T0 + 1)]].map((line) => JSON.stringify(line) + '\n')
    expect(s.size).toBe(Buffer.byteLength(lines.join('')))
    expect(s.event_count).toBe(3)
    expect(s.message_count).toBe(2)
  })

  it('computes the activity score from the reference formula', () => {
    const s = summaryOf(
      mouseMove(T0),
      interaction(T0 + 1000, MouseInteraction.Click),
      input(T0 + 2000, 'a'),
      consoleLog(T0 + 10_000, 'error', 'x'),
    )
    // (2 active s + 1 click + 1 keypress + 1 error) / (2 mouse activity + 10 s + 1 error) * 100
    expect(s.activity_score).toBe(38.46)
  })

  it('reads a $snapshot event as posthog-js sends it, window defaulting to the session', () => {
    const props = { $session_id: 's1', $snapshot_data: [meta(T0, 'https://a.example/')], $snapshot_source: 'web', $lib: 'web' }
    expect(snapshotBatchFrom(props, 's1')).toEqual({
      windowId: 's1',
      events: props.$snapshot_data,
      snapshotSource: 'web',
      snapshotLibrary: 'web',
    })
    expect(snapshotBatchFrom({ $window_id: 'w2', $snapshot_data: meta(T0, 'x') }, 's1').events).toHaveLength(1)
  })
})

describe('compressed events (cv 2024-10)', () => {
  const node = { type: 0, childNodes: [{ type: 2, tagName: 'p', attributes: {}, childNodes: [{ type: 3, textContent: 'héllo ✓' }] }] }
  const adds = [{ parentId: 1, nextId: null, node: { type: 3, textContent: 'added', id: 5 } }]

  it('computes the same metadata from compressed events as from plain ones', () => {
    const plain = [
      fullSnapshot(T0),
      incremental(T0 + 100, IncrementalSource.Mutation, { texts: [], attributes: [], removes: [], adds }),
      interaction(T0 + 200, 2),
    ]
    const compressed = [
      { type: EventType.FullSnapshot, timestamp: T0, data: gzipToString(plain[0].data), cv: '2024-10' },
      {
        type: EventType.IncrementalSnapshot,
        timestamp: T0 + 100,
        cv: '2024-10',
        data: {
          source: IncrementalSource.Mutation,
          texts: gzipToString([]),
          attributes: gzipToString([]),
          removes: gzipToString([]),
          adds: gzipToString(adds),
        },
      },
      interaction(T0 + 200, 2),
    ]
    const a = summaryOf(...plain)
    const b = summaryOf(...compressed)
    expect({ ...b, size: 0 }).toEqual({ ...a, size: 0 })
    expect(b.click_count).toBe(1)
  })

  it('decompresses a full snapshot, a mutation and a style sheet rule back to what was recorded', async () => {
    const full: RrwebEvent = {
      type: EventType.FullSnapshot,
      timestamp: T0,
      data: gzipToString({ node, initialOffset: { top: 0, left: 0 } }),
      cv: '2024-10',
    }
    expect(await decompressEvent(full)).toEqual({
      type: EventType.FullSnapshot,
      timestamp: T0,
      data: { node, initialOffset: { top: 0, left: 0 } },
    })
    const mutationEvent: RrwebEvent = {
      type: EventType.IncrementalSnapshot,
      timestamp: T0,
      cv: '2024-10',
      data: {
        source: IncrementalSource.Mutation,
        texts: gzipToString([]),
        attributes: gzipToString([{ id: 1, attributes: { class: 'x' } }]),
        removes: gzipToString([]),
        adds: gzipToString(adds),
      },
    }
    expect((await decompressEvent(mutationEvent)).data).toEqual({
      source: 0,
      texts: [],
      attributes: [{ id: 1, attributes: { class: 'x' } }],
      removes: [],
      adds,
    })
    const style: RrwebEvent = {
      type: EventType.IncrementalSnapshot,
      timestamp: T0,
      cv: '2024-10',
      data: { source: IncrementalSource.StyleSheetRule, id: 3, adds: gzipToString([{ rule: 'p{}' }]) },
    }
    expect((await decompressEvent(style)).data).toEqual({ source: 8, id: 3, adds: [{ rule: 'p{}' }] })
    const plain = mouseMove(T0) as RrwebEvent
    expect(await decompressEvent(plain)).toBe(plain)
  })
})

describe('merging partial metadata of one session', () => {
  const batches: SnapshotBatch[] = [
    batch(
      [meta(T0 + 500, 'https://a.example/late'), fullSnapshot(T0 + 500), mouseMove(T0 + 600), consoleLog(T0 + 700, 'error', 'boom')],
      'w1',
      { snapshotLibrary: 'web' },
    ),
    batch([meta(T0, 'https://a.example/first'), mutation(T0 + 3000), interaction(T0 + 5500, MouseInteraction.Click)], 'w2'),
    batch([mutation(T0 + 9000), mutation(T0 + 11_000), input(T0 + 14_000, 'a'), consoleLog(T0 + 14_001, 'error', 'boom')], 'w1'),
    batch([mouseMove(T0 + 4000), mutation(T0 + 30_000), consoleLog(T0 + 31_000, 'warn', 'slow')], 'w2', {
      snapshotSource: 'mobile',
      snapshotLibrary: 'ios',
    }),
    batch([interaction(T0 + 25_000, MouseInteraction.DblClick), mutation(T0 + 26_000), mutation(T0 + 41_000)], 'w1'),
  ]
  const onePass = RecordingMetadata.of(batches)

  it('gives the same result at every split as one pass over all batches', () => {
    for (let split = 0; split <= batches.length; split++) {
      const first = RecordingMetadata.of(batches.slice(0, split))
      const rest = RecordingMetadata.fromState(RecordingMetadata.of(batches.slice(split)).toState())
      const merged = first.merge(rest)
      expect(merged.summary()).toEqual(onePass.summary())
      expect(merged.consoleEntries()).toEqual(onePass.consoleEntries())
    }
    expect(onePass.summary()).toMatchObject({
      active_seconds: 13.401,
      click_count: 2,
      keypress_count: 1,
      start_url: 'https://a.example/first',
      console_error_count: 2,
    })
  })

  it('gives the same active time whichever order the partial results arrive in', () => {
    const reversed = batches.map((b) => RecordingMetadata.of([b])).reduceRight((acc, part) => acc.merge(part), RecordingMetadata.empty())
    expect(reversed.summary().active_seconds).toBe(onePass.summary().active_seconds)
  })
})
