import { describe, expect, it } from 'vitest'
import { bucketRange, byBucket, showsOn, wallTime, wallTimeIn, type Annotation } from './annotations'

const note = (id: number, date_marker: string, scope = 'project', dashboard_item: number | null = null): Annotation => ({
  id,
  content: `note ${id}`,
  date_marker,
  scope,
  dashboard_item,
  dashboard_id: scope === 'dashboard' ? dashboard_item : null,
  creation_type: 'USR',
  created_by: null,
  created_at: date_marker,
})

describe('annotations on a chart', () => {
  it('reads bucket names and instants as wall times', () => {
    expect(wallTime('2024-05-01')).toBe('2024-05-01 00:00:00')
    expect(wallTime('2024-05-01 10:00:00')).toBe('2024-05-01 10:00:00')
    expect(wallTime('2024-05-01T10:00')).toBe('2024-05-01 10:00:00')
    expect(wallTimeIn('2024-05-01T02:30:00Z', 'America/New_York')).toBe('2024-04-30 22:30:00')
    expect(wallTimeIn('2024-05-01T00:00:00Z', 'UTC')).toBe('2024-05-01 00:00:00')
  })

  it("puts each note in the day it falls on in the project's timezone", () => {
    const days = ['2024-04-29', '2024-04-30', '2024-05-01']
    // 02:30 UTC on May 1st is still April 30th in New York; in UTC it is May 1st.
    const notes = [note(1, '2024-05-01T02:30:00Z'), note(2, '2024-04-29T12:00:00Z'), note(3, '2024-05-01T23:59:59Z')]
    expect(byBucket(notes, days, 'America/New_York').map((b) => b.map((n) => n.id))).toEqual([[2], [1], [3]])
    expect(byBucket(notes, days, 'UTC').map((b) => b.map((n) => n.id))).toEqual([[2], [], [1, 3]])
  })

  it('leaves out notes before the first bucket and after the last one ends', () => {
    const days = ['2024-05-01 10:00:00', '2024-05-01 11:00:00']
    const notes = [note(1, '2024-05-01T09:59:59Z'), note(2, '2024-05-01T11:59:59Z'), note(3, '2024-05-01T12:00:00Z')]
    expect(byBucket(notes, days, 'UTC').map((b) => b.map((n) => n.id))).toEqual([[], [2]])
    expect(bucketRange(days)).toEqual({ from: '2024-05-01T10:00:00', to: '2024-05-01T11:59:59' })
    expect(byBucket(notes, [], 'UTC')).toEqual([])
  })

  it("shows the project's and the organization's notes everywhere, an insight's and a dashboard's only on them", () => {
    expect(showsOn(note(1, '2024-05-01T00:00:00Z', 'organization'), null)).toBe(true)
    expect(showsOn(note(1, '2024-05-01T00:00:00Z', 'dashboard_item', 7), 7)).toBe(true)
    expect(showsOn(note(1, '2024-05-01T00:00:00Z', 'dashboard_item', 7), 8)).toBe(false)
    expect(showsOn(note(1, '2024-05-01T00:00:00Z', 'dashboard_item', 7), null)).toBe(false)
    expect(showsOn(note(1, '2024-05-01T00:00:00Z', 'recording'), 7)).toBe(false)
    // A dashboard's (its id in dashboard_id here) on that dashboard's tiles only.
    expect(showsOn(note(1, '2024-05-01T00:00:00Z', 'dashboard', 3), 7, 3)).toBe(true)
    expect(showsOn(note(1, '2024-05-01T00:00:00Z', 'dashboard', 3), 7, 4)).toBe(false)
    expect(showsOn(note(1, '2024-05-01T00:00:00Z', 'dashboard', 3), 7)).toBe(false)
  })
})
