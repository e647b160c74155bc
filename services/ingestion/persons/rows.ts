// A range's output as the rows ClickHouse stores (store.ts prepare): pure, no I/O and no client, so
// that it runs where the person work runs (the ingestion worker, compute-worker.ts), off the thread that
// serves requests. Every row carries its origin in the log (_partition, and _offset: the range's last
// offset), which is what a replay bound leaves out of a load.
import { encodeRows } from '../../shared/clickhouse/rows'
import type { BatchRange } from './store'
import type { PersonChanges, ProcessedEvent } from '../types'
import { definitionRows } from '../definitions'

/**
 * A range's rows, encoded: the person tables first, then the events (written in that order). Bodies are
 * UTF-8 bytes, each in a buffer of its own, so that a worker hands them to the main thread without a copy
 * and chDB takes them without a conversion.
 */
export interface PreparedRows {
  range: BatchRange
  /** JSONEachRow bodies (shared/clickhouse/rows.ts) per person table. */
  persons: Array<{ table: string; chunks: Uint8Array[] }>
  events: Uint8Array[]
  /** Event and property definitions seen in the range (definitions.ts), per table; written after the events. */
  definitions: Array<{ table: string; chunks: Uint8Array[] }>
}

export function preparePersonRows(range: BatchRange, changes: PersonChanges, events: ProcessedEvent[]): PreparedRows {
  const origin = { _partition: range.partition, _offset: range.lastOffset }
  const tables: Array<[string, object[]]> = [
    [
      'person',
      changes.persons.map((p) => ({
        team_id: p.teamId,
        uuid: p.uuid,
        id: p.id,
        properties: p.properties,
        is_identified: p.isIdentified ? 1 : 0,
        is_deleted: p.isDeleted ? 1 : 0,
        version: p.version,
        created_at: p.createdAt,
        ...origin,
      })),
    ],
    [
      'person_distinct_id',
      changes.distinctIds.map((d) => ({
        team_id: d.teamId,
        distinct_id: d.distinctId,
        person_uuid: d.personUuid,
        is_deleted: d.isDeleted ? 1 : 0,
        version: d.version,
        ...origin,
      })),
    ],
    [
      'person_activity',
      changes.activity.map((a) => ({
        team_id: a.teamId,
        person_uuid: a.personUuid,
        activity: a.activity,
        detail: a.detail,
        at: a.at,
        ...origin,
      })),
    ],
    [
      'groups',
      changes.groups.map((g) => ({
        team_id: g.teamId,
        group_type_index: g.groupTypeIndex,
        group_key: g.groupKey,
        properties: g.properties,
        created_at: g.createdAt,
        version: g.version,
        ...origin,
      })),
    ],
    [
      'group_type_mapping',
      changes.groupTypes.map((g) => ({ team_id: g.teamId, group_type: g.groupType, group_type_index: g.groupTypeIndex, ...origin })),
    ],
  ]
  return {
    range: { topic: range.topic, partition: range.partition, firstOffset: range.firstOffset, lastOffset: range.lastOffset },
    persons: tables.filter(([, rows]) => rows.length > 0).map(([table, rows]) => ({ table, chunks: bytes(encodeRows(rows)) })),
    events: bytes(encodeRows(events.map((e) => eventRow(e, origin)))),
    definitions: Object.entries(definitionRows(events, changes.groups))
      .filter(([, rows]) => rows.length > 0)
      .map(([table, rows]) => ({ table, chunks: bytes(encodeRows(rows)) })),
  }
}

/** The bytes a prepared write hands to storage. */
export function preparedBytes(prepared: PreparedRows): number {
  return [...prepared.persons.flatMap((t) => t.chunks), ...prepared.events].reduce((n, chunk) => n + chunk.byteLength, 0)
}

/**
 * About what an event's row takes in its insert's body, without encoding it: its JSON length with every
 * string counted as if nothing in it were escaped (exact for plain ASCII text), plus the row's other
 * columns. A person's properties are one object shared by the events it is copied onto: measured once.
 */
export function eventRowBytes(e: ProcessedEvent): number {
  let bytes = ROW_COLUMNS_BYTES + e.uuid.length + e.event.length + e.distinctId.length + e.elementsChain.length + e.personId.length
  bytes += jsonLength(e.properties) + jsonLength(e.personProperties)
  for (const group of e.groupProperties) bytes += jsonLength(group)
  return bytes
}

/** The column names, timestamps, team, mode and origin of an event row: well above what they take. */
const ROW_COLUMNS_BYTES = 512
const measured = new WeakMap<object, number>()

function jsonLength(value: unknown): number {
  if (typeof value === 'string') return value.length + 2
  if (typeof value === 'number') return String(value).length
  if (typeof value !== 'object' || value === null) return 5
  const known = measured.get(value)
  if (known !== undefined) return known
  let bytes = 2
  if (Array.isArray(value)) for (const item of value) bytes += jsonLength(item) + 1
  else for (const [key, item] of Object.entries(value)) bytes += key.length + 4 + jsonLength(item)
  measured.set(value, bytes)
  return bytes
}

/** The buffers of a prepared write, for a transfer between threads. */
export function buffersOf(prepared: PreparedRows): ArrayBuffer[] {
  return [...prepared.persons.flatMap((t) => t.chunks), ...prepared.events, ...prepared.definitions.flatMap((t) => t.chunks)].map(
    (chunk) => chunk.buffer as ArrayBuffer,
  )
}

const utf8 = new TextEncoder()

// TextEncoder gives each body a buffer of its own (Buffer.from may share one pool among small buffers).
function bytes(chunks: string[]): Uint8Array[] {
  return chunks.map((chunk) => utf8.encode(chunk))
}

/** The deduplication token of a range's insert into a table: the same range always gets the same one. */
export function rangeToken(range: BatchRange, table: string): string {
  return `${table}:${range.topic}:${range.partition}:${range.firstOffset}-${range.lastOffset}`
}

// Properties go in as objects: inserts read an object for a String column as its JSON text (rows.ts).
function eventRow(e: ProcessedEvent, origin: { _partition: number; _offset: number }): object {
  const [g0, g1, g2, g3, g4] = e.groupProperties
  return {
    uuid: e.uuid,
    event: e.event,
    properties: e.properties,
    timestamp: e.timestamp,
    team_id: e.teamId,
    distinct_id: e.distinctId,
    elements_chain: e.elementsChain,
    created_at: e.createdAt,
    person_id: e.personId,
    person_created_at: e.personCreatedAt,
    person_properties: e.personProperties,
    person_mode: e.personMode,
    group0_properties: g0,
    group1_properties: g1,
    group2_properties: g2,
    group3_properties: g3,
    group4_properties: g4,
    ...origin,
  }
}
