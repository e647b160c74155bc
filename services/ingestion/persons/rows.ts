// A range's output as the rows ClickHouse stores (store.ts prepare): pure, no I/O and no client, so
// that it runs where the person work runs (the ingestion worker, compute-worker.ts), off the thread that
// serves requests. Every row carries its origin in the log (_partition, and _offset: the range's last
// offset), which is what a replay bound leaves out of a load.
import { encodeRows, joinLines } from '../../platform/clickhouse/rows'
import type { BatchRange } from './store'
import type { PersonChanges, ProcessedEvent, Properties } from '../types'
import type { DefinitionRows } from '../definitions'

/**
 * A range's rows, encoded: the person tables first, then the events (written in that order). Bodies are
 * UTF-8 bytes, each in a buffer of its own, so that a worker hands them to the main thread without a copy
 * and chDB takes them without a conversion.
 */
export interface PreparedRows {
  range: BatchRange
  /** JSONEachRow bodies (platform/clickhouse/rows.ts) per person table. */
  persons: Array<{ table: string; chunks: Uint8Array[] }>
  events: Uint8Array[]
  /** Wide persons' events (wide_events, and their persons' properties once per part: wide_event_persons), copied into events later (wide.ts). */
  wide: Array<{ table: string; chunks: Uint8Array[] }>
  /** Event and property definitions seen in the whole range (definitions.ts), per table, with its last part; written after the events. */
  definitions: Array<{ table: string; chunks: Uint8Array[] }>
}

/** A range's rows; `rows` are its events' own (encodeEventRow), which take the range's origin here. */
export function preparePersonRows(
  range: BatchRange,
  changes: PersonChanges,
  events: ProcessedEvent[],
  rows: string[],
  definitions: DefinitionRows | null,
): PreparedRows {
  const origin = { _partition: range.partition, _offset: range.lastOffset }
  const originText = `"_partition":${origin._partition},"_offset":${origin._offset}}\n`
  const { narrow, wide } = splitWide(events, rows, originText)
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
    events: bytes(joinLines(narrow)),
    wide: wide.filter(([, lines]) => lines.length > 0).map(([table, lines]) => ({ table, chunks: bytes(joinLines(lines)) })),
    definitions: Object.entries(definitions ?? {})
      .filter(([, rows]) => rows.length > 0)
      .map(([table, rows]) => ({ table, chunks: bytes(encodeRows(rows)) })),
  }
}

/**
 * A part's event lines (`rows` with the part's origin), apart from its wide persons' events: those go to
 * wide_events without the person's properties, which go to wide_event_persons once per distinct text of
 * the part (person_properties_ref numbers them in order of first use). Their copies into events come in
 * chunks of about WIDE_CHUNK_CHARS of properties (wide.ts copies one chunk per statement). A replay of the
 * part makes the same lines.
 */
function splitWide(events: ProcessedEvent[], rows: string[], originText: string): { narrow: string[]; wide: Array<[string, string[]]> } {
  const narrow: string[] = []
  const staged: string[] = []
  const persons: string[] = []
  const refs = new Map<string, number>()
  let chunk = 0
  let chunkChars = 0
  for (const [i, e] of events.entries()) {
    const person = sharedJson(e.personProperties)
    if (!isWide(person)) {
      narrow.push(`${rows[i]},${originText}`)
      continue
    }
    let ref = refs.get(person)
    if (ref === undefined) {
      refs.set(person, (ref = refs.size))
      persons.push(`{"person_properties_ref":${ref},"person_properties":${person},${originText}`)
    }
    if (chunkChars > 0 && chunkChars + person.length > WIDE_CHUNK_CHARS) {
      chunk++
      chunkChars = 0
    }
    chunkChars += person.length
    staged.push(`${rows[i]},"person_properties_ref":${ref},"chunk":${chunk},"seq":${i},${originText}`)
  }
  return {
    narrow,
    wide: [
      ['wide_event_persons', persons],
      ['wide_events', staged],
    ],
  }
}

/**
 * Person properties whose JSON text is longer than this make their events wide: stored first in
 * wide_events and copied into events after their range is stored (wide.ts), so that thousands of copies
 * of one person never hold the events of every other project behind them. PostHog copies the person onto
 * every event whatever its size (up to its 640 KiB cap); so does Wren, a moment later for these.
 */
export const WIDE_PERSON_CHARS = 16 << 10

/** About how many characters of person properties one copy into events carries (at least one event). */
export const WIDE_CHUNK_CHARS = 8 << 20

function isWide(personJson: string): boolean {
  return personJson.length > WIDE_PERSON_CHARS
}

/** The bytes a prepared write hands to storage. */
export function preparedBytes(prepared: PreparedRows): number {
  return [...prepared.persons.flatMap((t) => t.chunks), ...prepared.events, ...prepared.wide.flatMap((t) => t.chunks)].reduce(
    (n, chunk) => n + chunk.byteLength,
    0,
  )
}

/**
 * The JSON text of a person's or a group's properties, encoded once per version: a version is one
 * object (never changed in place: a change makes a new one) shared by every event it is copied onto.
 */
const jsonTexts = new WeakMap<Properties, string>()

function sharedJson(properties: Properties): string {
  // The map first: `for … in` on a person's properties (often a dictionary-mode object) lists its keys
  // every time, which cost more than the lookup. Empty objects (most groups) are not kept.
  let text = jsonTexts.get(properties)
  if (text !== undefined) return text
  for (const _ in properties) {
    jsonTexts.set(properties, (text = JSON.stringify(properties)))
    return text
  }
  return '{}'
}

/** The buffers of a prepared write, for a transfer between threads. */
export function buffersOf(prepared: PreparedRows): ArrayBuffer[] {
  return [
    ...prepared.persons.flatMap((t) => t.chunks),
    ...prepared.events,
    ...prepared.wide.flatMap((t) => t.chunks),
    ...prepared.definitions.flatMap((t) => t.chunks),
  ].map((chunk) => chunk.buffer as ArrayBuffer)
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

/**
 * An event's JSONEachRow line without its origin columns and closing brace (preparePersonRows adds the
 * part's): the text JSON.stringify gives the row. The JSON columns are String columns written as objects
 * (inserts read an object for a String column as its JSON text). An event's own properties are encoded
 * here, once; its person's and groups' once per version (sharedJson). A wide person's event (isWide) leaves
 * its person's properties out: preparePersonRows writes them once per part.
 */
export function encodeEventRow(e: ProcessedEvent): string {
  const [g0, g1, g2, g3, g4] = e.groupProperties
  const text = JSON.stringify
  const person = sharedJson(e.personProperties)
  return (
    `{"uuid":${text(e.uuid)},"event":${text(e.event)},"properties":${text(e.properties)},"timestamp":${text(e.timestamp)}` +
    `,"team_id":${text(e.teamId)},"distinct_id":${text(e.distinctId)},"elements_chain":${text(e.elementsChain)}` +
    `,"created_at":${text(e.createdAt)},"person_id":${text(e.personId)},"person_created_at":${text(e.personCreatedAt)}` +
    `${isWide(person) ? '' : `,"person_properties":${person}`},"person_mode":${text(e.personMode)}` +
    `,"group0_properties":${sharedJson(g0)},"group1_properties":${sharedJson(g1)},"group2_properties":${sharedJson(g2)}` +
    `,"group3_properties":${sharedJson(g3)},"group4_properties":${sharedJson(g4)}`
  )
}
