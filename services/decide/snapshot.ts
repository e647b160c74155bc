// Decide's materialized snapshot of person state (DESIGN.md): for the distinct ids decide is asked
// about, the person's properties and experience-continuity hash keys; group properties; each project's
// group type mapping. Loaded from ClickHouse on a miss, then kept fresh by the ingestion processor's
// person changes (in process in embedded mode, from the log's person-changes feed in cluster mode:
// platform/log/person-changes.ts), so a warm distinct id costs no query.
import type { ClickHouseClient } from '../platform/clickhouse'
import { insertRows, queryRows } from '../platform/clickhouse'
import type { SnapshotChanges } from '../platform/log/person-changes'
import type { Properties } from '../flags/types'

export interface PersonEntry {
  uuid: string
  properties: Properties
  /** flag key → hash key */
  overrides: Record<string, string>
  /** Bumped whenever properties or overrides change: answers computed from an older version are stale. */
  version: number
}

const SEP = '\u0000'
const DEFAULT_MAX_ENTRIES = 500_000

export interface PersonKeys {
  distinct: string
  person: string | null
}

export class PersonSnapshot {
  /** team+distinct id → person uuid, or null when no person has that distinct id (yet). */
  private readonly distinctIds = new Map<string, string | null>()
  private readonly persons = new Map<string, PersonEntry>()
  private readonly groups = new Map<string, Properties | null>()
  private readonly groupTypes = new Map<number, Map<number, string>>()
  /** Bumped on every applied change: a load that overlapped one is not cached (it may be older). */
  private epoch = 0
  /** Bumped when a held group's properties or a group type mapping change (what a group flag reads). */
  groupsVersion = 0

  constructor(
    private readonly client: ClickHouseClient,
    private readonly maxEntries = DEFAULT_MAX_ENTRIES,
  ) {}

  async loadGroupTypes(): Promise<void> {
    const rows = await queryRows<{ team_id: number; group_type: string; group_type_index: number }>(
      this.client,
      'SELECT team_id, group_type, group_type_index FROM group_type_mapping GROUP BY team_id, group_type, group_type_index',
    )
    for (const r of rows) this.setGroupType(Number(r.team_id), Number(r.group_type_index), r.group_type)
  }

  groupTypeNames(teamId: number): Map<number, string> {
    return this.groupTypes.get(teamId) ?? new Map()
  }

  /** undefined: not in memory; null: known to have no person. */
  peekPerson(teamId: number, distinctId: string): PersonEntry | null | undefined {
    const uuid = this.distinctIds.get(teamId + SEP + distinctId)
    if (uuid === undefined) return undefined
    if (uuid === null) return null
    return this.persons.get(teamId + SEP + uuid)
  }

  /** The map keys of a distinct id and of its person (null: none), for looking it up again without building them (see peekPersonAt). */
  personKeys(teamId: number, distinctId: string, person: PersonEntry | null): PersonKeys {
    return { distinct: teamId + SEP + distinctId, person: person === null ? null : teamId + SEP + person.uuid }
  }

  /** What peekPerson answers for the distinct id of `keys`, if it still has the person `keys` names; else undefined. */
  peekPersonAt(keys: PersonKeys): PersonEntry | null | undefined {
    const uuid = this.distinctIds.get(keys.distinct)
    if (uuid === null) return keys.person === null ? null : undefined
    if (uuid === undefined || keys.person === null) return undefined
    const entry = this.persons.get(keys.person)
    return entry?.uuid === uuid ? entry : undefined
  }

  async person(teamId: number, distinctId: string): Promise<PersonEntry | null> {
    const warm = this.peekPerson(teamId, distinctId)
    if (warm !== undefined) return warm
    const epoch = this.epoch
    const [row] = await queryRows<{ person_uuid: string; is_deleted: number }>(
      this.client,
      `SELECT argMax(person_uuid, version) AS person_uuid, argMax(is_deleted, version) AS is_deleted
       FROM person_distinct_id WHERE team_id = {t:Int64} AND distinct_id = {d:String} GROUP BY distinct_id`,
      { t: teamId, d: distinctId },
    )
    let entry: PersonEntry | null = null
    if (row && Number(row.is_deleted) === 0) {
      const [p] = await queryRows<{ properties: string; is_deleted: number }>(
        this.client,
        `SELECT argMax(properties, version) AS properties, argMax(is_deleted, version) AS is_deleted FROM person
         WHERE team_id = {t:Int64} AND uuid = {u:UUID} GROUP BY uuid`,
        { t: teamId, u: row.person_uuid },
      )
      if (p && Number(p.is_deleted) === 0) {
        const overrides = await queryRows<{ feature_flag_key: string; hash_key: string }>(
          this.client,
          `SELECT feature_flag_key, argMin(hash_key, created_at) AS hash_key FROM feature_flag_hash_key_overrides
           WHERE team_id = {t:Int64} AND person_uuid = {u:UUID} GROUP BY feature_flag_key`,
          { t: teamId, u: row.person_uuid },
        )
        entry = {
          uuid: row.person_uuid,
          properties: JSON.parse(p.properties) as Properties,
          overrides: Object.fromEntries(overrides.map((o) => [o.feature_flag_key, o.hash_key])),
          version: 0,
        }
      }
    }
    if (this.epoch === epoch) {
      this.trim()
      this.distinctIds.set(teamId + SEP + distinctId, entry?.uuid ?? null)
      if (entry && !this.persons.has(teamId + SEP + entry.uuid)) this.persons.set(teamId + SEP + entry.uuid, entry)
      return entry ? (this.persons.get(teamId + SEP + entry.uuid) ?? entry) : null
    }
    return entry
  }

  peekGroup(teamId: number, index: number, key: string): Properties | null | undefined {
    return this.groups.get(teamId + SEP + index + SEP + key)
  }

  async group(teamId: number, index: number, key: string): Promise<Properties | null> {
    const warm = this.peekGroup(teamId, index, key)
    if (warm !== undefined) return warm
    const epoch = this.epoch
    const [row] = await queryRows<{ properties: string }>(
      this.client,
      `SELECT argMax(properties, version) AS properties FROM groups WHERE team_id = {t:Int64} AND group_type_index = {i:UInt8} AND group_key = {k:String} GROUP BY group_key`,
      { t: teamId, i: index, k: key },
    )
    const properties = row ? (JSON.parse(row.properties) as Properties) : null
    if (this.epoch === epoch) {
      this.groups.set(teamId + SEP + index + SEP + key, properties)
      this.groupsVersion++
    }
    return properties
  }

  /** Stores hash-key overrides for a person, keeping any that exist (the first one written wins). */
  async addOverrides(teamId: number, personUuid: string, overrides: Record<string, string>, now: string): Promise<void> {
    const entry = this.persons.get(teamId + SEP + personUuid)
    const fresh = Object.entries(overrides).filter(([flagKey]) => !entry || entry.overrides[flagKey] === undefined)
    if (fresh.length === 0) return
    await insertRows(
      this.client,
      'feature_flag_hash_key_overrides',
      fresh.map(([flagKey, hashKey]) => ({
        team_id: teamId,
        person_uuid: personUuid,
        feature_flag_key: flagKey,
        hash_key: hashKey,
        created_at: now,
      })),
    )
    if (entry) {
      for (const [flagKey, hashKey] of fresh) entry.overrides[flagKey] ??= hashKey
      entry.version++
    }
  }

  /** The ingestion processor's person changes, applied once they are stored (in process, or from the log's feed). */
  apply(changes: SnapshotChanges): void {
    this.epoch++
    for (const g of changes.groupTypes) this.setGroupType(g.teamId, g.groupTypeIndex, g.groupType)
    for (const g of changes.groups) {
      const key = g.teamId + SEP + g.groupTypeIndex + SEP + g.groupKey
      if (this.groups.has(key)) {
        this.groups.set(key, g.properties)
        this.groupsVersion++
      }
    }
    // Persons merged or created under a distinct id decide has seen: their uuid now matters.
    const wanted = new Set<string>()
    for (const d of changes.distinctIds) {
      const key = d.teamId + SEP + d.distinctId
      if (!this.distinctIds.has(key)) continue
      this.distinctIds.set(key, d.isDeleted ? null : d.personUuid)
      if (!d.isDeleted) wanted.add(d.teamId + SEP + d.personUuid)
    }
    for (const p of changes.persons) {
      const key = p.teamId + SEP + p.uuid
      const current = this.persons.get(key)
      if (p.isDeleted) {
        this.persons.delete(key)
        continue
      }
      if (current) {
        current.properties = p.properties
        current.version++
      } else if (wanted.has(key)) this.persons.set(key, { uuid: p.uuid, properties: p.properties, overrides: {}, version: 0 })
    }
    // A distinct id now pointing at a person we do not hold is a miss again (its overrides live in storage).
    for (const d of changes.distinctIds) {
      const key = d.teamId + SEP + d.distinctId
      const uuid = this.distinctIds.get(key)
      if (uuid && !this.persons.has(d.teamId + SEP + uuid)) this.distinctIds.delete(key)
    }
  }

  private setGroupType(teamId: number, index: number, name: string): void {
    let m = this.groupTypes.get(teamId)
    if (!m) this.groupTypes.set(teamId, (m = new Map()))
    if (m.get(index) === name) return
    m.set(index, name)
    this.groupsVersion++
  }

  /** Bounded memory: past the cap, the oldest entries go (they are loaded again on their next miss). */
  private trim(): void {
    if (this.distinctIds.size < this.maxEntries) return
    const drop = Math.ceil(this.maxEntries / 10)
    let n = 0
    for (const key of this.distinctIds.keys()) {
      if (n++ >= drop) break
      this.distinctIds.delete(key)
    }
    if (this.persons.size > this.maxEntries) this.persons.clear()
    if (this.groups.size > this.maxEntries) {
      this.groups.clear()
      this.groupsVersion++ // changes to groups no longer held would go unseen
    }
  }
}
