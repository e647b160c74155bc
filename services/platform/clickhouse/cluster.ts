// The cluster form of Wren's ClickHouse schema, generated from the same schemas/clickhouse/*.sql that
// embedded mode runs, so there is one set of table definitions:
//   - every statement runs ON CLUSTER, but a migration's one-off INSERT … SELECT into a table that is not
//     sharded, which runs once (replication copies its rows);
//   - a sharded table `t` becomes `t_local` (Replicated*MergeTree, one ZooKeeper path per shard) plus
//     `t` = Distributed(cluster, db, t_local, sharding key), so the query code keeps using `t`;
//   - every other table is Replicated*MergeTree on one path shared by all shards: a full copy on every
//     node (persons, distinct ids and the small configuration tables are read by key and joined with
//     events, so every node keeps them local, as PostHog does).
// Insert deduplication tokens keep working: Replicated tables deduplicate by token within
// replicated_deduplication_window (set from the embedded non_replicated_deduplication_window), and
// inserts into Distributed tables are made synchronous (insert_distributed_sync=1), so a replayed batch
// reaches each shard as the same block with the same token.

/** Tables spread over shards, with the key that picks a row's shard. */
export const SHARDED_TABLES: Record<string, string> = {
  // A distinct id's events on one shard: SDK retries of a uuid (same distinct id) fold on that shard.
  events: 'sipHash64(distinct_id)',
  // A session's blocks on one shard: the snapshots API reads one session.
  session_recording_blocks: 'sipHash64(session_id)',
}

const CREATE_TABLE = /^CREATE TABLE (IF NOT EXISTS )?([A-Za-z_][A-Za-z0-9_]*)\s*\(([\s\S]*)$/i
const ALTER_TABLE = /^ALTER TABLE ([A-Za-z_][A-Za-z0-9_]*)\s+([\s\S]*)$/i
const INSERT_SELECT = /^INSERT INTO ([A-Za-z_][A-Za-z0-9_]*)\b[\s\S]*\bSELECT\b/i
const COLUMN_CHANGE = /^(ADD|DROP|MODIFY|RENAME|COMMENT|CLEAR) COLUMN\b/i
const ENGINE =
  /ENGINE\s*=\s*(ReplacingMergeTree|MergeTree|SummingMergeTree|AggregatingMergeTree|CollapsingMergeTree|VersionedCollapsingMergeTree)(\s*\(([^)]*)\))?/i

/** Rewrites one statement of an embedded-mode migration into the statements for `cluster`. */
export function clusterStatements(statement: string, cluster: string): string[] {
  const on = `ON CLUSTER ${quoteIdent(cluster)}`
  const create = CREATE_TABLE.exec(statement)
  if (create) {
    const [, ifNotExists = '', name, rest] = create
    const sharded = SHARDED_TABLES[name]
    const local = sharded ? `${name}_local` : name
    const zkPath = sharded ? `/clickhouse/tables/{shard}/{database}/${local}` : `/clickhouse/tables/all/{database}/${local}`
    const engine = ENGINE.exec(rest)
    if (!engine) throw new Error(`no cluster form for the engine of table ${name}: ${statement.slice(0, 200)}`)
    const args = [`'${zkPath}'`, `'{replica}'`, ...(engine[3]?.trim() ? [engine[3].trim()] : [])]
    const body = rest
      .replace(ENGINE, `ENGINE = Replicated${engine[1]}(${args.join(', ')})`)
      .replace(/non_replicated_deduplication_window/g, 'replicated_deduplication_window')
    const out = [`CREATE TABLE ${ifNotExists}${local} ${on} (${body}`]
    if (sharded)
      out.push(
        `CREATE TABLE ${ifNotExists}${name} ${on} AS ${local} ENGINE = Distributed(${quoteString(cluster)}, currentDatabase(), ${local}, ${sharded})`,
      )
    return out
  }
  const alter = ALTER_TABLE.exec(statement)
  if (alter) {
    const [, name, rest] = alter
    // The Distributed table mirrors the local table's columns, so a column change goes to both; a change
    // of storage (TTL, settings, indexes) is the local table's alone: a Distributed table has none.
    if (!SHARDED_TABLES[name]) return [`ALTER TABLE ${name} ${on} ${rest}`]
    return COLUMN_CHANGE.test(rest)
      ? [`ALTER TABLE ${name}_local ${on} ${rest}`, `ALTER TABLE ${name} ${on} ${rest}`]
      : [`ALTER TABLE ${name}_local ${on} ${rest}`]
  }
  // A migration's one-off copy into a table that is a full copy on every node: the node running the migration
  // inserts, and replication takes the rows to the others (its deduplication token makes a second run a no-op).
  const insert = INSERT_SELECT.exec(statement)
  if (insert && !SHARDED_TABLES[insert[1]]) return [statement]
  throw new Error(`no cluster form for this migration statement (add one in clickhouse/cluster.ts): ${statement.slice(0, 200)}`)
}

/**
 * The start of a lightweight DELETE of `table`'s rows: on a cluster, a sharded table's rows are in its
 * local tables on every shard (a Distributed table takes no DELETE); replicated tables pass a DELETE on.
 */
export function deleteFrom(table: string, cluster: string | null): string {
  return cluster && SHARDED_TABLES[table] ? `DELETE FROM ${table}_local ON CLUSTER ${quoteIdent(cluster)}` : `DELETE FROM ${table}`
}

function quoteIdent(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name)) throw new Error(`invalid ClickHouse cluster name ${JSON.stringify(name)}`)
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `\`${name}\``
}

function quoteString(name: string): string {
  quoteIdent(name)
  return `'${name}'`
}
