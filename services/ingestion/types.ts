// Shapes that flow through ingestion. Capture produces IngestEvent / PersonCommand (as Avro on the log);
// the ingestion processor turns them into stored events and person changes.

// The log's message shapes belong to the log's contract (platform/log/contract.ts); re-exported for ingestion's code.
export type { IngestEvent, PersonCommand, Properties } from '../platform/log/contract'
import type { Properties } from '../platform/log/contract'

export interface Person {
  teamId: number
  /** Integer id, unique across the instance (persons/ids.ts); persons stored before that keep their per-project ids. */
  id: number
  /** Deterministic: uuidv5(`${teamId}:${firstDistinctId}`, PERSON_UUID_NAMESPACE). */
  uuid: string
  properties: Properties
  isIdentified: boolean
  /** ISO 8601 UTC: the timestamp of the event that created the person. */
  createdAt: string
  /** Monotonic per uuid; every write bumps it. */
  version: number
  isDeleted: boolean
}

export type PersonMode = 'full' | 'propertyless' | 'force_upgrade'

/** What ingestion decided for one event: the row to store in ClickHouse `events`. */
export interface ProcessedEvent {
  teamId: number
  uuid: string
  event: string
  distinctId: string
  /** Final event properties (with $group_N added). */
  properties: Properties
  timestamp: string
  createdAt: string
  elementsChain: string
  personId: string
  /** The person's properties after this event was applied ('{}' for personless events). */
  personProperties: Properties
  personCreatedAt: string
  personMode: PersonMode
  /** group0..group4 properties at ingestion time, '{}' when none. */
  groupProperties: [Properties, Properties, Properties, Properties, Properties]
}

export type PersonActivity = 'created' | 'updated' | 'merged' | 'split' | 'deleted'

export interface ActivityEntry {
  teamId: number
  personUuid: string
  activity: PersonActivity
  /** e.g. {changes: [{field, before, after}]} or {merge: {source: uuid, distinctIds}} */
  detail: Properties
  at: string
}

export interface DistinctIdRow {
  teamId: number
  distinctId: string
  personUuid: string
  isDeleted: boolean
  /** Monotonic per (teamId, distinctId); 0 when first written, bumped on every move. */
  version: number
}

export interface GroupRow {
  teamId: number
  groupTypeIndex: number
  groupKey: string
  properties: Properties
  createdAt: string
  version: number
}

export interface GroupTypeRow {
  teamId: number
  groupType: string
  groupTypeIndex: number
}

/** Everything a batch changed, drained by the processor and written to ClickHouse. */
export interface PersonChanges {
  persons: Person[]
  distinctIds: DistinctIdRow[]
  activity: ActivityEntry[]
  groups: GroupRow[]
  groupTypes: GroupTypeRow[]
}

/** PostHog-style ingestion warning (e.g. cannot_merge_already_identified). */
export interface IngestionWarning {
  teamId: number
  type: string
  details: Properties
}

export const PERSON_UUID_NAMESPACE = '932979b4-65c3-4424-8467-0b66ec27bc22'
