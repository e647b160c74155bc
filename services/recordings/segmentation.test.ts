import { describe, expect, it } from 'vitest'
import { activeMilliseconds, activityOf, mergeActivity } from './segmentation'

interface Timed {
  timestamp: number
  isActive: boolean
}

// PostHog's walk as the reference describes it (§4.3), written out plainly to check the cluster form against.
function walk(events: Timed[]): number {
  const sorted = [...events].sort((a, b) => a.timestamp - b.timestamp)
  let total = 0
  let segment: { start: number; end: number; active: boolean } | null = null
  let lastActive = 0
  for (const event of sorted) {
    const isNew = !segment || (event.isActive && !segment.active) || (segment.active && lastActive + 5000 < event.timestamp)
    if (event.isActive) lastActive = event.timestamp
    if (isNew) {
      if (segment?.active) total += Math.max(1, segment.end - segment.start)
      segment = { start: event.timestamp, end: event.timestamp, active: event.isActive }
    } else if (segment) {
      segment.end = event.timestamp
    }
  }
  if (segment?.active) total += Math.max(1, segment.end - segment.start)
  return total
}

// A small deterministic generator: gaps around the 5 s threshold are what matter.
function randomEvents(seed: number, count: number): Timed[] {
  let state = seed
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  let ts = 1_700_000_000_000
  return Array.from({ length: count }, () => {
    ts += [0, 1, 1000, 4999, 5000, 5001, 12_000][Math.floor(next() * 7)]
    return { timestamp: ts, isActive: next() < 0.4 }
  })
}

const stateOf = (events: Timed[]) =>
  activityOf(
    events.filter((e) => e.isActive).map((e) => e.timestamp),
    events.filter((e) => !e.isActive).map((e) => e.timestamp),
  )

describe('active milliseconds by 5-second segmentation', () => {
  it('matches the segment walk on many event lists, whole and split into shuffled parts', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const events = randomEvents(seed, 40)
      const expected = walk(events)
      expect(activeMilliseconds(stateOf(events))).toBe(expected)
      // deal the events into three parts by position, as batches of different windows would interleave
      const parts = [0, 1, 2].map((k) => events.filter((_, i) => (i * 7 + seed) % 3 === k))
      const merged = mergeActivity(mergeActivity(stateOf(parts[2]), stateOf(parts[0])), stateOf(parts[1]))
      expect(activeMilliseconds(merged)).toBe(expected)
      expect(merged).toEqual(stateOf(events))
    }
  })
})
