// The log's message contract: what capture and the persons API put on the ingest topic and ingestion
// reads (IngestEvent, PersonCommand), and their Avro encoding. Every message starts with a magic byte
// and its schema version, so a processor can read messages written before an upgrade: old versions are
// resolved to the current one.
import { readFileSync } from 'node:fs'
import avro from 'avsc'
import { withoutNul, withoutNulDeep } from '../json'
import { appUrl } from '../paths'

export type Properties = Record<string, unknown>

/** An event as capture accepted it: validated, stamped, timestamp already skew-corrected. */
export interface IngestEvent {
  teamId: number
  uuid: string
  event: string
  distinctId: string
  /** Top-level $set/$set_once already merged into properties.$set/$set_once (top-level keys win). */
  properties: Properties
  /** ISO 8601 UTC, microsecond precision allowed. */
  timestamp: string
  /** When capture received it, ISO 8601 UTC. */
  now: string
  elementsChain: string
}

/** A change asked for through the persons API; applied by the processor, the single writer. */
export type PersonCommand =
  | { action: 'update_properties'; commandId: string; teamId: number; personUuid: string; set: Properties; at: string }
  | { action: 'delete_property'; commandId: string; teamId: number; personUuid: string; key: string; at: string }
  | { action: 'split'; commandId: string; teamId: number; personUuid: string; mainDistinctId?: string; at: string }
  | { action: 'delete'; commandId: string; teamId: number; personUuid: string; at: string }

const MAGIC = 0x57 // 'W'
const schemaDir = appUrl('schemas/avro/')

function loadSchema(file: string): avro.Type {
  return avro.Type.forSchema(JSON.parse(readFileSync(new URL(file, schemaDir), 'utf8')) as avro.Schema, { wrapUnions: true })
}

/** Where a message is encoded before its one copy out (avsc's toBuffer, then the header joined on, made three buffers and two copies). */
const scratch = Buffer.allocUnsafe(64 * 1024)

/** The magic byte, the schema version, then the Avro encoding of `wire`, in a buffer of its own. */
function framed(type: avro.Type, version: number, wire: unknown): Buffer {
  scratch[0] = MAGIC
  scratch[1] = version
  const end = type.encode(wire, scratch, 2)
  if (end >= 0) return Buffer.from(scratch.subarray(0, end))
  // Larger than the scratch space (a recording's snapshot): encoded again, into a buffer of its exact size.
  const out = Buffer.allocUnsafe(scratch.length - end)
  out[0] = MAGIC
  out[1] = version
  type.encode(wire, out, 2)
  return out
}

const ingestVersions: Record<number, avro.Type> = { 1: loadSchema('ingest-message.v1.avsc') }
const INGEST_VERSION = 1
const ingestCurrent = ingestVersions[INGEST_VERSION]
const ingestResolvers = new Map<number, ReturnType<avro.Type['createResolver']>>(
  Object.entries(ingestVersions)
    .filter(([v]) => Number(v) !== INGEST_VERSION)
    .map(([v, type]) => [Number(v), ingestCurrent.createResolver(type)]),
)

export type IngestItem = { kind: 'event'; event: IngestEvent } | { kind: 'command'; command: PersonCommand }

interface WireEvent {
  uuid: string
  event: string
  distinct_id: string
  properties: string
  timestamp: string
  now: string
  elements_chain: string
}
interface WireCommand {
  command_id: string
  action: PersonCommand['action']
  person_uuid: string
  args: string
  at: string
}
interface WireIngest {
  team_id: number
  body: { 'wren.CapturedEvent': WireEvent } | { 'wren.PersonCommand': WireCommand }
}

export function encodeIngest(item: IngestItem): Buffer {
  const wire: WireIngest =
    item.kind === 'event'
      ? { team_id: item.event.teamId, body: { 'wren.CapturedEvent': eventToWire(item.event) } }
      : { team_id: item.command.teamId, body: { 'wren.PersonCommand': commandToWire(item.command) } }
  return framed(ingestCurrent, INGEST_VERSION, wire)
}

/** Throws on a message that is not a Wren ingest message (the caller sends it to the dead-letter path). */
export function decodeIngest(buf: Buffer): IngestItem {
  if (buf.length < 2 || buf[0] !== MAGIC) throw new Error('not a Wren message (bad magic byte)')
  const version = buf[1]
  const writer = ingestVersions[version]
  if (!writer) throw new Error(`unknown ingest message schema version ${version}`)
  const payload = buf.subarray(2)
  const resolver = ingestResolvers.get(version)
  const wire = (resolver ? ingestCurrent.fromBuffer(payload, resolver) : ingestCurrent.fromBuffer(payload)) as WireIngest
  const teamId = Number(wire.team_id)
  if ('wren.CapturedEvent' in wire.body) {
    const e = wire.body['wren.CapturedEvent']
    const properties = JSON.parse(e.properties) as Record<string, unknown>
    return {
      kind: 'event',
      event: {
        teamId,
        uuid: e.uuid,
        // Events come out of the log with NUL replaced by U+FFFD, as PostHog's ingestion stores them
        // (JSON text holds a NUL only as the escape `\u0000`, so the check on the text is cheap).
        event: withoutNul(e.event),
        distinctId: withoutNul(e.distinct_id),
        properties: e.properties.includes('\\u0000') ? withoutNulDeep(properties) : properties,
        timestamp: e.timestamp,
        now: e.now,
        elementsChain: e.elements_chain,
      },
    }
  }
  const c = wire.body['wren.PersonCommand']
  const args = JSON.parse(c.args) as Record<string, unknown>
  return {
    kind: 'command',
    command: { ...args, action: c.action, commandId: c.command_id, teamId, personUuid: c.person_uuid, at: c.at } as PersonCommand,
  }
}

function eventToWire(e: IngestEvent): WireEvent {
  return {
    uuid: e.uuid,
    event: e.event,
    distinct_id: e.distinctId,
    properties: JSON.stringify(e.properties),
    timestamp: e.timestamp,
    now: e.now,
    elements_chain: e.elementsChain,
  }
}

function commandToWire(c: PersonCommand): WireCommand {
  const { action, commandId, teamId: _teamId, personUuid, at, ...args } = c
  return { command_id: commandId, action, person_uuid: personUuid, args: JSON.stringify(args), at }
}

/** One /s/ request as capture accepted it (reference §4.2): one session, its rrweb events in the order sent. */
export interface SnapshotItem {
  teamId: number
  sessionId: string
  windowId: string
  distinctId: string
  uuid: string
  snapshotSource: string
  snapshotLibrary: string
  /** ISO 8601 UTC: the first event's skew-corrected timestamp. */
  timestamp: string
  /** ISO 8601 UTC: when capture received it. */
  now: string
  /** The rrweb events, as a JSON array (kept as text: the processor stores it without rebuilding it). */
  events: string
}

const snapshotVersions: Record<number, avro.Type> = { 1: loadSchema('snapshot-message.v1.avsc') }
const SNAPSHOT_VERSION = 1
const snapshotCurrent = snapshotVersions[SNAPSHOT_VERSION]

interface WireSnapshot {
  team_id: number
  session_id: string
  window_id: string
  distinct_id: string
  uuid: string
  snapshot_source: string
  snapshot_library: string
  timestamp: string
  now: string
  events: string
}

export function encodeSnapshot(item: SnapshotItem): Buffer {
  const wire: WireSnapshot = {
    team_id: item.teamId,
    session_id: item.sessionId,
    window_id: item.windowId,
    distinct_id: item.distinctId,
    uuid: item.uuid,
    snapshot_source: item.snapshotSource,
    snapshot_library: item.snapshotLibrary,
    timestamp: item.timestamp,
    now: item.now,
    events: item.events,
  }
  return framed(snapshotCurrent, SNAPSHOT_VERSION, wire)
}

/** Throws on a message that is not a Wren snapshot message. */
export function decodeSnapshot(buf: Buffer): SnapshotItem {
  if (buf.length < 2 || buf[0] !== MAGIC) throw new Error('not a Wren message (bad magic byte)')
  const version = buf[1]
  if (!snapshotVersions[version]) throw new Error(`unknown snapshot message schema version ${version}`)
  const w = snapshotCurrent.fromBuffer(buf.subarray(2)) as WireSnapshot
  return {
    teamId: Number(w.team_id),
    sessionId: w.session_id,
    windowId: w.window_id,
    distinctId: w.distinct_id,
    uuid: w.uuid,
    snapshotSource: w.snapshot_source,
    snapshotLibrary: w.snapshot_library,
    timestamp: w.timestamp,
    now: w.now,
    events: w.events,
  }
}
