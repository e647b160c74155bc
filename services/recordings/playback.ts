// Loading a recording for playback: its snapshot sources, then their blocks in requests of at most
// BLOCKS_PER_REQUEST, each JSONL line `["<window id>", <rrweb event>]` read, posthog-js's partial compression
// undone, and every event in time order, as rrweb's player takes them. The player page's script runs this in
// the browser (services/recordings/player/); its tests run it in Node: no Node or DOM imports here.

import { asRrwebEvent, decompressEvent, type RrwebEvent } from './rrweb'

/** Blocks one snapshots request may ask for: the route's MAX_BLOCKS_PER_REQUEST (a test holds them equal). */
export const BLOCKS_PER_REQUEST = 20

/** Answers the body of `GET …/session_recordings/:id/snapshots?<params>`, and throws on an error answer. */
export type SnapshotsRequest = (params: Record<string, string>) => Promise<string>

export interface PlaybackEvents {
  /** Every readable event, in time order. */
  events: RrwebEvent[]
  /** Lines that held no rrweb event, or whose compressed fields would not decompress. */
  skipped: number
}

/** The block keys in runs of consecutive keys, each at most BLOCKS_PER_REQUEST long: one request each. */
export function blockRanges(keys: readonly number[]): Array<[number, number]> {
  const sorted = [...new Set(keys)].sort((a, b) => a - b)
  const ranges: Array<[number, number]> = []
  for (const key of sorted) {
    const last = ranges.at(-1)
    if (last && key === last[1] + 1 && key - last[0] < BLOCKS_PER_REQUEST) last[1] = key
    else ranges.push([key, key])
  }
  return ranges
}

/** The events of a snapshots JSONL answer, decompressed, in the answer's order. */
export async function eventsOfJsonl(text: string): Promise<PlaybackEvents> {
  const lines = text.split('\n').filter((line) => line.trim() !== '')
  const read = await Promise.all(
    lines.map(async (line) => {
      let parsed: unknown
      try {
        parsed = JSON.parse(line)
      } catch {
        return null
      }
      const event = asRrwebEvent(Array.isArray(parsed) ? parsed[1] : null)
      return event ? decompressEvent(event).catch(() => null) : null
    }),
  )
  const events = read.filter((event): event is RrwebEvent => event !== null)
  return { events, skipped: lines.length - events.length }
}

/** Events sorted by timestamp; events of the same millisecond keep their recorded order. */
export function inPlayOrder(events: readonly RrwebEvent[]): RrwebEvent[] {
  return [...events].sort((a, b) => a.timestamp - b.timestamp)
}

/** Every event of the recording, read through `snapshots`. */
export async function loadPlayback(snapshots: SnapshotsRequest): Promise<PlaybackEvents> {
  const listing = JSON.parse(await snapshots({})) as { sources?: Array<{ source?: unknown; blob_key?: unknown }> }
  const keys = (listing.sources ?? [])
    .filter((source) => source.source === 'blob_v2' && /^\d+$/.test(String(source.blob_key)))
    .map((source) => Number(source.blob_key))
  const parts = await Promise.all(
    blockRanges(keys).map(async ([start, end]) =>
      eventsOfJsonl(await snapshots({ source: 'blob_v2', start_blob_key: String(start), end_blob_key: String(end) })),
    ),
  )
  return {
    events: inPlayOrder(parts.flatMap((part) => part.events)),
    skipped: parts.reduce((sum, part) => sum + part.skipped, 0),
  }
}
