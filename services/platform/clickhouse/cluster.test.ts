import { describe, expect, it } from 'vitest'
import { readdirSync, readFileSync } from 'node:fs'
import { clusterStatements, deleteFrom } from './cluster'
import { splitStatements } from './index'

const dir = new URL('../../../schemas/clickhouse/', import.meta.url)
const statements = readdirSync(dir)
  .filter((f) => f.endsWith('.sql'))
  .sort()
  .flatMap((f) => splitStatements(readFileSync(new URL(f, dir), 'utf8')))

describe('cluster schema from the same migrations', () => {
  it('has a cluster form for every statement in schemas/clickhouse, all ON CLUSTER and replicated', () => {
    for (const statement of statements) {
      // A one-off copy (INSERT … SELECT) runs once on one node: replication takes its rows to the others.
      if (/^INSERT INTO/.test(statement)) {
        expect(clusterStatements(statement, 'wren')).toEqual([statement])
        continue
      }
      for (const out of clusterStatements(statement, 'wren')) {
        expect(out).toContain('ON CLUSTER wren')
        if (/^CREATE TABLE/.test(out)) expect(out).toMatch(/ENGINE = (Replicated\w*MergeTree\('\/clickhouse\/tables\/|Distributed\()/)
        expect(out).not.toContain('non_replicated_deduplication_window')
      }
    }
  })

  it('shards events by distinct id behind a Distributed table of the same name', () => {
    const events = statements.find((s) => /CREATE TABLE IF NOT EXISTS events\b/.test(s))!
    const [local, distributed] = clusterStatements(events, 'wren')
    expect(local).toMatch(/^CREATE TABLE IF NOT EXISTS events_local ON CLUSTER wren \(/)
    expect(local).toContain(`ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/events_local', '{replica}')`)
    expect(local).toContain('replicated_deduplication_window = 10000')
    expect(distributed).toBe(
      `CREATE TABLE IF NOT EXISTS events ON CLUSTER wren AS events_local ENGINE = Distributed('wren', currentDatabase(), events_local, sipHash64(distinct_id))`,
    )
  })

  it('keeps a full replica of person tables on every node, with the version column', () => {
    const person = statements.find((s) => /CREATE TABLE IF NOT EXISTS person \(/.test(s))!
    const out = clusterStatements(person, 'wren')
    expect(out).toHaveLength(1)
    expect(out[0]).toContain(`ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/person', '{replica}', version)`)
  })

  it('sends column changes of a sharded table to both its local and Distributed tables', () => {
    expect(clusterStatements('ALTER TABLE events ADD COLUMN x String', 'c1')).toEqual([
      'ALTER TABLE events_local ON CLUSTER c1 ADD COLUMN x String',
      'ALTER TABLE events ON CLUSTER c1 ADD COLUMN x String',
    ])
    expect(() => clusterStatements('INSERT INTO projects VALUES (1)', 'c1')).toThrow(/no cluster form/)
    expect(() => clusterStatements('INSERT INTO events SELECT * FROM events', 'c1')).toThrow(/no cluster form/)
  })

  it('sends a storage change of a sharded table (its TTL) to the local table only, since a Distributed table has none', () => {
    const retention = statements.filter((s) => /^ALTER TABLE session_recording_\w+ .*retention_days/.test(s))
    expect(retention.map((s) => clusterStatements(s, 'c1'))).toEqual([
      [
        'ALTER TABLE session_recording_blocks_local ON CLUSTER c1 ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 30',
        'ALTER TABLE session_recording_blocks ON CLUSTER c1 ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 30',
      ],
      [
        'ALTER TABLE session_recording_blocks_local ON CLUSTER c1 MODIFY TTL toDateTime(first_timestamp) + toIntervalDay(retention_days + 1)',
      ],
      ['ALTER TABLE session_recording_metadata ON CLUSTER c1 ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 30'],
      ['ALTER TABLE session_recording_metadata ON CLUSTER c1 MODIFY TTL toDateTime(start_time) + toIntervalDay(retention_days + 1)'],
    ])
  })

  it('deletes a sharded table’s rows from its local tables on every shard', () => {
    expect(deleteFrom('session_recording_blocks', 'wren')).toBe('DELETE FROM session_recording_blocks_local ON CLUSTER wren')
    expect(deleteFrom('session_recording_metadata', 'wren')).toBe('DELETE FROM session_recording_metadata')
    expect(deleteFrom('session_recording_blocks', null)).toBe('DELETE FROM session_recording_blocks')
  })
})
