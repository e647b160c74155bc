// The events table as one query reads it: `events`, with the session join (sessions.ts) and the person-override
// join (persons-sql.ts) when the query's conditions and columns turned out to read them. Every events read
// that can be shaped by its caller (trends, the events list, the Query API's EventsQuery) builds its FROM here.
import type { SessionColumns } from './sessions'
import { SESSION_JOIN_SETTINGS, sessionJoin } from './sessions'
import type { EventPersonId } from './persons-sql'

export interface EventsSource {
  /** `events` and its joins, to follow FROM. */
  from: string
  /** The SETTINGS clause's content the query needs ('' when none). */
  settings: string
}

/**
 * Call it after every condition and column of the query is compiled (they mark what they read). `team`: the
 * condition on team_id; `bounds`: the query's time bounds as SQL DateTime64 expressions (the sessions joined are
 * those with an event within a day of them).
 */
export function eventsSource(
  team: string,
  reads: { sessions?: SessionColumns; personId?: EventPersonId },
  bounds: { from?: string; to?: string } = {},
): EventsSource {
  let from = 'events'
  if (reads.sessions?.used) from += ` ${sessionJoin(team, bounds)}`
  const overrides = reads.personId?.join(team)
  if (overrides) from += ` ${overrides}`
  return { from, settings: reads.sessions?.used ? SESSION_JOIN_SETTINGS : '' }
}
