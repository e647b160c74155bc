// A project's data version: it changes whenever its events or persons change (new batches, merges,
// deletions), so a cached answer computed at another version may be out of date. Every kind's cache uses it.
import { queryRows, type ClickHouseClient } from '../platform/clickhouse'

export class DataVersion {
  private localParts: Promise<boolean> | null = null

  constructor(private readonly clickhouse: ClickHouseClient) {}

  /**
   * When the tables are local (embedded, single server) their parts tell it without reading rows; behind a
   * Distributed table (cluster) we read the project's own rows instead.
   */
  async of(teamId: number, signal?: AbortSignal): Promise<string> {
    const ch = this.clickhouse
    this.localParts ??= queryRows<{ engine: string }>(
      ch,
      "SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = 'events'",
    ).then(
      ([row]) => !!row && row.engine.endsWith('MergeTree'),
      () => false,
    )
    const query = (await this.localParts)
      ? `SELECT count() AS parts, sum(rows) AS total, max(modification_time) AS modified, groupBitXor(cityHash64(name)) AS names FROM system.parts
         WHERE active AND database = currentDatabase() AND table IN ('events', 'person', 'person_distinct_id', 'cohort_static_members')`
      : `SELECT (SELECT tuple(max(_offset), count()) FROM events WHERE team_id = {team:Int64}) AS e,
                (SELECT tuple(max(_offset), count()) FROM person WHERE team_id = {team:Int64}) AS p,
                (SELECT tuple(max(_offset), count()) FROM person_distinct_id WHERE team_id = {team:Int64}) AS d,
                (SELECT count() FROM cohort_static_members WHERE team_id = {team:Int64}) AS s`
    const [row] = await queryRows<Record<string, unknown>>(ch, query, { team: teamId }, { signal })
    return JSON.stringify(row)
  }
}
