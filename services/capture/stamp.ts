// Stamps a decoded event with what only the server knows (uuid, ip, sent_at, skew-corrected timestamp), giving
// the IngestEvent that goes on the log. Mirrors what PostHog's ingestion does on arrival (reference §1.4).

import { v7 } from 'uuid'
import type { IngestEvent, Properties } from '../shared/log/contract'
import type { DecodedEvent } from './decode'
import { resolveTimestamp } from './timestamp'

export interface StampContext {
  teamId: number
  now: Date
  sentAt: Date | null
  ip: string | null
  newUuid: () => string
}

/** A time-ordered uuid for events the client sent without one. */
export function newEventUuid(): string {
  return v7()
}

function asObject(value: unknown): Properties {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Properties) : {}
}

export function toIngestEvent(e: DecodedEvent, ctx: StampContext): IngestEvent {
  // Copy so the decoded event is never mutated. Nothing is removed: ingestion decides what to strip (it does so
  // for personless events and for $groupidentify, whose properties reach it unchanged from here).
  const properties: Properties = { ...e.properties }

  // SDKs such as posthog-python send $set/$set_once at the top level; on a clash the top-level value wins.
  if (e.set) properties.$set = { ...asObject(properties.$set), ...e.set }
  if (e.setOnce) properties.$set_once = { ...asObject(properties.$set_once), ...e.setOnce }

  // The client may have sent its own $ip (e.g. a server-side SDK forwarding its user's): keep it.
  if (ctx.ip !== null && (properties.$ip === undefined || properties.$ip === null)) properties.$ip = ctx.ip
  if (ctx.sentAt) properties.$sent_at = isoOf(ctx.sentAt)

  const timestamp = resolveTimestamp({
    timestamp: e.timestamp,
    offset: e.offset,
    sentAt: ctx.sentAt,
    now: ctx.now,
    ignoreSentAt: properties.$ignore_sent_at === true,
  })

  return {
    teamId: ctx.teamId,
    uuid: e.uuid ?? ctx.newUuid(),
    event: e.event,
    distinctId: e.distinctId,
    properties,
    timestamp: timestamp.toISOString(),
    now: isoOf(ctx.now),
    elementsChain: typeof properties.$elements_chain === 'string' ? properties.$elements_chain : '',
  }
}

// Every event of a request shares its `now` and `sentAt`: format each Date once, not once per event.
let lastDate: Date | null = null
let lastIso = ''
function isoOf(date: Date): string {
  if (date !== lastDate) {
    lastDate = date
    lastIso = date.toISOString()
  }
  return lastIso
}
