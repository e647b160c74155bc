// Active time of a recording by PostHog's 5-second segmentation (reference §4.3), kept in a form that merges exactly.
//
// PostHog walks all events in time order: an active event opens an active segment, the segment ends when no active
// event follows within 5 s, and every event up to then (active or not) extends it; the active time is the sum over
// active segments of max(1 ms, duration). That walk is the same as this: active events whose gaps are ≤ 5 s form a
// cluster [start, lastActive]; its segment ends at the latest event of any kind in [start, lastActive + 5 s].
// A state that holds the clusters, plus the inactive timestamps outside every cluster's window (a later batch's
// active events may still reach them), is a function of the set of events seen, so merging two states equals one
// pass over both inputs.

export const ACTIVITY_THRESHOLD_MS = 5000

/** [start, lastActive, end] in epoch ms. */
export type Cluster = [number, number, number]

export interface ActivityState {
  clusters: Cluster[] // sorted by start, windows not within reach of each other
  idle: number[] // sorted distinct inactive timestamps outside every cluster's window
}

export const emptyActivity = (): ActivityState => ({ clusters: [], idle: [] })

/** The canonical state of the clusters and inactive timestamps given in any order. */
function normalize(clusters: Cluster[], idle: number[]): ActivityState {
  const sorted = [...clusters].sort((a, b) => a[0] - b[0])
  const merged: Cluster[] = []
  for (const [start, last, end] of sorted) {
    const current = merged.at(-1)
    if (current && start <= current[1] + ACTIVITY_THRESHOLD_MS) {
      current[1] = Math.max(current[1], last)
      current[2] = Math.max(current[2], end)
    } else {
      merged.push([start, last, end])
    }
  }
  const idleSorted = [...new Set(idle)].sort((a, b) => a - b)
  const outside: number[] = []
  let i = 0
  for (const ts of idleSorted) {
    while (i < merged.length && merged[i][1] + ACTIVITY_THRESHOLD_MS < ts) i++
    const cluster = merged[i]
    if (cluster && ts >= cluster[0]) cluster[2] = Math.max(cluster[2], ts)
    else outside.push(ts)
  }
  return { clusters: merged, idle: outside }
}

/** The state of one batch of events, given as their timestamps split by activity. */
export function activityOf(active: number[], inactive: number[]): ActivityState {
  return normalize(
    active.map((ts): Cluster => [ts, ts, ts]),
    inactive,
  )
}

export function mergeActivity(a: ActivityState, b: ActivityState): ActivityState {
  return normalize([...a.clusters, ...b.clusters], [...a.idle, ...b.idle])
}

export function activeMilliseconds(state: ActivityState): number {
  return Math.floor(state.clusters.reduce((sum, [start, , end]) => sum + Math.max(1, end - start), 0))
}
