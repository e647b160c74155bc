// The person store on ClickHouse (store.ts): the loader's queries, one round per batch and project,
// never one per event, and the batch writer. Every row carries its origin in the log (_partition and
// _offset, the range's last offset), which is what a replay bound leaves out; every insert carries a
// deduplication token named after the range, so writing the same range twice stores it once.
import type { ClickHouseClient } from '../../platform/clickhouse'
import { encodedRows, insertEncoded, queryRows, replayTokens } from '../../platform/clickhouse'
import type { CopiesWaiting } from '../../platform/ingestion-lag'
import { encodeEventRow, preparePersonRows, rangeToken, type PreparedRows } from './rows'
import type { LoadedState, Lookups, PersonStore, PingResult, ReplayBound } from './store'
import type { DistinctIdRow, GroupRow, GroupTypeRow, Person, ProcessedEvent } from '../types'
import { personUuid } from './uuid'
import { copyWideEvents, type StoredUpTo } from './wide'
import { firstIdAfter } from './ids'

export class ClickHousePersonStore implements PersonStore<PreparedRows> {
  /**
   * Parts (partition, last offset, when written) whose wide events were written and are not copied yet;
   * null: not known (since the start, or since a copy stopped early) until the next copy has looked.
   */
  private wideParts: Array<[number, number, number]> | null = null

  constructor(
    private readonly client: ClickHouseClient,
    private readonly now: () => number = Date.now,
  ) {}

  async load(wanted: Lookups, bound: ReplayBound | null): Promise<LoadedState> {
    const state: LoadedState = { teams: [], distinctIds: [], persons: [], groups: [] }
    const teams = new Set<number>([
      ...wanted.teamIds,
      ...wanted.distinctIds.map((d) => d.teamId),
      ...wanted.personUuids.map((p) => p.teamId),
      ...wanted.groups.map((g) => g.teamId),
    ])
    const where = bound ? 'NOT (_partition = {bp:UInt32} AND _offset >= {bo:UInt64})' : '1'
    const boundParams = bound ? { bp: bound.partition, bo: bound.firstOffset } : {}

    if (wanted.personIds) {
      // The highest stored id of the space, over every project: ids are unique across the instance (ids.ts).
      const { partition, partitions } = wanted.personIds
      const [max] = await queryRows<{ max_id: number }>(
        this.client,
        `SELECT max(id) AS max_id FROM person WHERE (id - 1) % {n:UInt32} = {r:UInt32} AND ${where}`,
        { n: partitions, r: partition % partitions, ...boundParams },
      )
      state.nextPersonId = firstIdAfter(wanted.personIds, Number(max?.max_id ?? 0))
    }

    for (const teamId of teams) {
      const p = { t: teamId, ...boundParams }
      if (wanted.teamIds.includes(teamId)) {
        const groupTypes = await queryRows<{ group_type: string; group_type_index: number }>(
          this.client,
          `SELECT group_type, group_type_index FROM group_type_mapping WHERE team_id = {t:Int64} AND ${where} GROUP BY group_type, group_type_index ORDER BY group_type_index`,
          p,
        )
        state.teams.push({
          teamId,
          groupTypes: groupTypes.map((g): GroupTypeRow => ({
            teamId,
            groupType: g.group_type,
            groupTypeIndex: Number(g.group_type_index),
          })),
        })
      }

      const ids = wanted.distinctIds.filter((d) => d.teamId === teamId).map((d) => d.distinctId)
      const idRows = ids.length ? await distinctIdRows(this.client, `distinct_id IN {ids:Array(String)}`, { ...p, ids }, where) : []
      const uuids = new Set<string>(wanted.personUuids.filter((x) => x.teamId === teamId).map((x) => x.personUuid))
      for (const row of idRows) uuids.add(row.personUuid)
      const found = new Set(idRows.map((r) => r.distinctId))
      for (const id of ids) if (!found.has(id)) uuids.add(personUuid(teamId, id))

      const persons = uuids.size ? await personRows(this.client, teamId, [...uuids], p, where) : []
      const live = persons.filter((x) => !x.isDeleted).map((x) => x.uuid)
      const allIds = live.length
        ? await distinctIdRows(
            this.client,
            `distinct_id IN (SELECT distinct_id FROM person_distinct_id WHERE team_id = {t:Int64} AND person_uuid IN {uuids:Array(UUID)})`,
            { ...p, uuids: live },
            where,
          )
        : []
      const byId = new Map<string, DistinctIdRow>()
      for (const row of [...idRows, ...allIds]) byId.set(row.distinctId, row)
      state.distinctIds.push(...byId.values())
      state.persons.push(...persons)

      const groupsWanted = wanted.groups.filter((g) => g.teamId === teamId)
      if (groupsWanted.length) {
        const known = state.teams.find((t) => t.teamId === teamId)?.groupTypes ?? []
        const pairs = groupsWanted.flatMap((g) => {
          const index = known.find((k) => k.groupType === g.groupType)?.groupTypeIndex
          return index === undefined ? [] : [[index, g.groupKey] as [number, string]]
        })
        if (pairs.length) state.groups.push(...(await groupRows(this.client, teamId, pairs, p, where)))
      }
    }
    return state
  }

  prepare(...args: Parameters<typeof preparePersonRows>): PreparedRows {
    return preparePersonRows(...args)
  }

  encodeEvent(event: ProcessedEvent): string {
    return encodeEventRow(event)
  }

  async write(prepared: PreparedRows, replayed = false): Promise<void> {
    const token = await this.tokens(prepared, replayed)
    const insert = async ({ table, chunks }: { table: string; chunks: Uint8Array[] }) => {
      const t = token(table)
      if (t !== null) await insertEncoded(this.client, table, chunks, t)
    }
    // Person state first: an event row never points at a person that is not stored yet.
    await Promise.all(prepared.persons.map(insert))
    await insert({ table: 'events', chunks: prepared.events })
    for (const wide of prepared.wide) await insert(wide)
    if (prepared.wide.length) this.wideParts?.push([prepared.range.partition, prepared.range.lastOffset, this.now()])
    await Promise.all(prepared.definitions.map(insert))
  }

  /** Each table's deduplication token for a part (null: nothing to write): a replay's looks first (replayTokens). */
  private async tokens(prepared: PreparedRows, replayed: boolean): Promise<(table: string) => string | null> {
    const token = (table: string) => rangeToken(prepared.range, table)
    if (!replayed) return token
    const tables = [...prepared.persons, { table: 'events', chunks: prepared.events }, ...prepared.wide]
    return replayTokens(
      this.client,
      { partition: prepared.range.partition, offset: prepared.range.lastOffset },
      tables.map(({ table, chunks }) => ({ table, rows: encodedRows(chunks) })),
      token,
    )
  }

  async copyWide(upTo: StoredUpTo, next: () => Promise<boolean>): Promise<number> {
    // Nothing to look for (most ranges): no query. At the start, whatever an earlier process left.
    const stored = ([partition, offset]: [number, number, number]) => offset <= (upTo.get(partition) ?? -1)
    if (this.wideParts && !this.wideParts.some(stored)) return 0
    this.wideParts = this.wideParts?.filter((part) => !stored(part)) ?? []
    let stopped = false
    let done = false
    try {
      const copied = await copyWideEvents(this.client, upTo, async () => {
        stopped = !(await next())
        return !stopped
      })
      done = !stopped
      return copied
    } finally {
      // Stopped or failed before the end: what is left is looked for the next time.
      if (!done) this.wideParts = null
    }
  }

  copiesWaiting(): CopiesWaiting | null {
    if (!this.wideParts) return null
    const oldest = Math.min(...this.wideParts.map(([, , at]) => at))
    return { parts: this.wideParts.length, seconds: this.wideParts.length ? Math.max(0, (this.now() - oldest) / 1000) : 0 }
  }

  ping(): Promise<PingResult> {
    return this.client.ping()
  }
}

async function distinctIdRows(
  client: ClickHouseClient,
  filter: string,
  params: Record<string, unknown>,
  where: string,
): Promise<DistinctIdRow[]> {
  const rows = await queryRows<{ team_id: number; distinct_id: string; person_uuid: string; is_deleted: number; ver: number }>(
    client,
    `SELECT team_id, distinct_id, argMax(person_uuid, version) AS person_uuid, argMax(is_deleted, version) AS is_deleted, max(version) AS ver
     FROM person_distinct_id WHERE team_id = {t:Int64} AND ${filter} AND ${where} GROUP BY team_id, distinct_id`,
    params,
  )
  return rows.map((r) => ({
    teamId: Number(r.team_id),
    distinctId: r.distinct_id,
    personUuid: r.person_uuid,
    isDeleted: Number(r.is_deleted) === 1,
    version: Number(r.ver),
  }))
}

async function personRows(
  client: ClickHouseClient,
  teamId: number,
  uuids: string[],
  params: Record<string, unknown>,
  where: string,
): Promise<Person[]> {
  const rows = await queryRows<{
    uuid: string
    id: number
    properties: string
    is_identified: number
    is_deleted: number
    ver: number
    created_at: string
  }>(
    client,
    `SELECT uuid, argMax(id, version) AS id, argMax(properties, version) AS properties, argMax(is_identified, version) AS is_identified,
            argMax(is_deleted, version) AS is_deleted, max(version) AS ver, argMax(created_at, version) AS created_at
     FROM person WHERE team_id = {t:Int64} AND uuid IN {uuids:Array(UUID)} AND ${where} GROUP BY uuid`,
    { ...params, uuids },
  )
  return rows.map((r) => ({
    teamId,
    uuid: r.uuid,
    id: Number(r.id),
    properties: JSON.parse(r.properties) as Record<string, unknown>,
    isIdentified: Number(r.is_identified) === 1,
    isDeleted: Number(r.is_deleted) === 1,
    version: Number(r.ver),
    createdAt: r.created_at,
  }))
}

async function groupRows(
  client: ClickHouseClient,
  teamId: number,
  pairs: Array<[number, string]>,
  params: Record<string, unknown>,
  where: string,
): Promise<GroupRow[]> {
  const rows = await queryRows<{ group_type_index: number; group_key: string; properties: string; created_at: string; ver: number }>(
    client,
    `SELECT group_type_index, group_key, argMax(properties, version) AS properties, argMax(created_at, version) AS created_at, max(version) AS ver
     FROM groups WHERE team_id = {t:Int64} AND (group_type_index, group_key) IN arrayZip({indices:Array(UInt8)}, {keys:Array(String)}) AND ${where}
     GROUP BY group_type_index, group_key`,
    // Two arrays of plain values: a JS array of [index, key] pairs is not a Tuple parameter to ClickHouse.
    { ...params, indices: pairs.map(([index]) => index), keys: pairs.map(([, key]) => key) },
  )
  return rows.map((r) => ({
    teamId,
    groupTypeIndex: Number(r.group_type_index),
    groupKey: r.group_key,
    properties: JSON.parse(r.properties) as Record<string, unknown>,
    createdAt: r.created_at,
    version: Number(r.ver),
  }))
}
