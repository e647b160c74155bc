// Annotations on a chart over time: which bucket each note falls in. A chart's buckets are named by their starts as
// wall times in the project's timezone (a trend's `days`: `2024-05-01`, `2024-05-01 10:00:00`); a note's
// `date_marker` is an instant. A note falls in the last bucket that starts at or before its wall time there; past the
// last bucket's end (one interval after its start) or before the first, it falls in none.

export interface Annotation {
  id: number
  content: string
  date_marker: string
  scope: string
  dashboard_item: number | null
  dashboard_id: number | null
  creation_type: 'USR' | 'GIT'
  created_by: { email?: string; first_name?: string } | null
  created_at: string
}

/** A bucket's name as a comparable wall time: `YYYY-MM-DD HH:MM:SS`. */
export function wallTime(day: string): string {
  const [date, time = ''] = day.replace('T', ' ').split(' ')
  return `${date} ${(time + '00:00:00'.slice(time.length)).slice(0, 8)}`
}

/** The wall time of `instant` in `timezone`, as wallTime writes one. */
export function wallTimeIn(instant: string, timezone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(instant))
      .map((p) => [p.type, p.value]),
  )
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`
}

/** Milliseconds between two wall times, read as if in UTC (a bucket's length, give or take a DST hour). */
const span = (from: string, to: string) => Date.parse(`${to.replace(' ', 'T')}Z`) - Date.parse(`${from.replace(' ', 'T')}Z`)

/** The end of the last bucket: its start plus one interval (the step between the last two; a day when there is one bucket). */
function lastEnd(starts: string[]): number {
  const last = starts[starts.length - 1]
  const step = starts.length > 1 ? span(starts[starts.length - 2], last) : 86_400_000
  return Date.parse(`${last.replace(' ', 'T')}Z`) + step
}

/** The annotations of each bucket of `days` (a note outside the buckets is in none). */
export function byBucket(notes: Annotation[], days: string[], timezone: string): Annotation[][] {
  const starts = days.map(wallTime)
  const out: Annotation[][] = starts.map(() => [])
  if (!starts.length) return out
  const end = lastEnd(starts)
  for (const note of notes) {
    const at = wallTimeIn(note.date_marker, timezone)
    if (at < starts[0] || Date.parse(`${at.replace(' ', 'T')}Z`) >= end) continue
    let i = starts.length - 1
    while (starts[i] > at) i--
    out[i].push(note)
  }
  for (const notes of out) notes.sort((a, b) => a.date_marker.localeCompare(b.date_marker) || a.id - b.id)
  return out
}

/** The wall times to ask the annotations list for: from the first bucket's start to the last one's end. */
export function bucketRange(days: string[]): { from: string; to: string } | null {
  if (!days.length) return null
  const starts = days.map(wallTime)
  return { from: starts[0].replace(' ', 'T'), to: new Date(lastEnd(starts) - 1000).toISOString().slice(0, 19) }
}

/**
 * Whether a note shows on a chart: the project's and the organization's everywhere, an insight's only on that
 * insight, a dashboard's on that dashboard's tiles (PostHog's annotations logic); a recording's on no chart.
 */
export function showsOn(note: Annotation, insightId: number | null, dashboardId: number | null = null): boolean {
  if (note.scope === 'project' || note.scope === 'organization') return true
  if (note.scope === 'dashboard') return dashboardId !== null && note.dashboard_id === dashboardId
  return note.scope === 'dashboard_item' && insightId !== null && note.dashboard_item === insightId
}
