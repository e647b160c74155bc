// Writes one batch's output to ClickHouse. Every insert carries a deduplication token named after the
// log batch, so writing the same batch twice (a replay after a crash) stores it once.
import type { ClickHouseClient } from '../shared/clickhouse'
import { insertRows } from '../shared/clickhouse'
import type { LogBatch } from '../shared/log/log'
import type { PersonChanges, ProcessedEvent } from './types'

export async function writeBatch(client: ClickHouseClient, batch: LogBatch, changes: PersonChanges, events: ProcessedEvent[]): Promise<void> {
  const origin = { _partition: batch.partition, _offset: batch.lastOffset }
  const token = (table: string) => `${table}:${batch.topic}:${batch.partition}:${batch.firstOffset}-${batch.lastOffset}`
  // Person state first: an event row never points at a person that is not stored yet.
  await Promise.all([
    insertRows(client, 'person', changes.persons.map((p) => ({ team_id: p.teamId, uuid: p.uuid, id: p.id, properties: JSON.stringify(p.properties), is_identified: p.isIdentified ? 1 : 0, is_deleted: p.isDeleted ? 1 : 0, version: p.version, created_at: p.createdAt, ...origin })), token('person')),
    insertRows(client, 'person_distinct_id', changes.distinctIds.map((d) => ({ team_id: d.teamId, distinct_id: d.distinctId, person_uuid: d.personUuid, is_deleted: d.isDeleted ? 1 : 0, version: d.version, ...origin })), token('person_distinct_id')),
    insertRows(client, 'person_activity', changes.activity.map((a) => ({ team_id: a.teamId, person_uuid: a.personUuid, activity: a.activity, detail: JSON.stringify(a.detail), at: a.at, ...origin })), token('person_activity')),
    insertRows(client, 'groups', changes.groups.map((g) => ({ team_id: g.teamId, group_type_index: g.groupTypeIndex, group_key: g.groupKey, properties: JSON.stringify(g.properties), created_at: g.createdAt, version: g.version, ...origin })), token('groups')),
    insertRows(client, 'group_type_mapping', changes.groupTypes.map((g) => ({ team_id: g.teamId, group_type: g.groupType, group_type_index: g.groupTypeIndex, ...origin })), token('group_type_mapping')),
  ])
  await insertRows(client, 'events', events.map((e) => eventRow(e, origin)), token('events'))
}

function eventRow(e: ProcessedEvent, origin: { _partition: number; _offset: number }): Record<string, unknown> {
  const [g0, g1, g2, g3, g4] = e.groupProperties.map((g) => JSON.stringify(g))
  return {
    uuid: e.uuid,
    event: e.event,
    properties: JSON.stringify(e.properties),
    timestamp: e.timestamp,
    team_id: e.teamId,
    distinct_id: e.distinctId,
    elements_chain: e.elementsChain,
    created_at: e.createdAt,
    person_id: e.personId,
    person_created_at: e.personCreatedAt,
    person_properties: JSON.stringify(e.personProperties),
    person_mode: e.personMode,
    group0_properties: g0,
    group1_properties: g1,
    group2_properties: g2,
    group3_properties: g3,
    group4_properties: g4,
    ...origin,
  }
}
