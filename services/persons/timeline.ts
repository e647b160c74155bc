// properties_timeline: how a person's properties changed over time, read from the person properties
// each event was stored with. A new point starts whenever the relevant properties change.

export interface TimelinePoint {
  timestamp: string
  properties: Record<string, unknown>
  relevant_event_count: number
}

export function propertiesTimeline(
  rows: Array<{ timestamp: string; person_properties: string }>,
  crucialKeys: string[],
  from: string | null,
  to: string | null,
): { points: TimelinePoint[]; crucial_property_keys: string[]; effective_date_from: string | null; effective_date_to: string | null } {
  const points: TimelinePoint[] = []
  let lastSignature: string | null = null
  for (const row of rows) {
    const properties = JSON.parse(row.person_properties) as Record<string, unknown>
    const relevant = crucialKeys.length ? Object.fromEntries(crucialKeys.map((k) => [k, properties[k]])) : properties
    const signature = JSON.stringify(relevant)
    if (signature === lastSignature) points[points.length - 1].relevant_event_count++
    else points.push({ timestamp: row.timestamp, properties, relevant_event_count: 1 })
    lastSignature = signature
  }
  return {
    points,
    crucial_property_keys: crucialKeys,
    effective_date_from: from ?? rows[0]?.timestamp ?? null,
    effective_date_to: to ?? rows[rows.length - 1]?.timestamp ?? null,
  }
}
