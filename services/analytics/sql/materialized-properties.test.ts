import pino from 'pino'
import { describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../platform/clickhouse'
import { compileGroup, eventColumns } from '../property-filters/sql'
import { parsePropertyGroup } from '../property-filters/parse'
import { SqlParams } from '../../platform/clickhouse/params'
import { EventPersonId } from './persons-sql'
import { materializedColumnName, materializeStatements, PropertyMaterializer } from './materialized-properties'

describe('materialized event properties', () => {
  it('adds the column with the compiler’s own JSON expression, on a cluster to the local and Distributed tables', () => {
    const name = materializedColumnName("it's")
    expect(name).toMatch(/^pmat_it_s_[0-9a-f]{10}$/)
    expect(materializedColumnName('a.b')).not.toBe(materializedColumnName('a_b'))
    expect(materializeStatements("it's", null, true)).toEqual([
      `ALTER TABLE events ADD COLUMN IF NOT EXISTS \`${name}\` LowCardinality(Nullable(String)) MATERIALIZED JSONExtract(properties, 'it\\'s', 'Nullable(String)') COMMENT 'wren event property: it\\'s'`,
      `ALTER TABLE events MATERIALIZE COLUMN \`${name}\``,
    ])
    expect(materializeStatements('id', null, false)[0]).toContain(' Nullable(String) MATERIALIZED ')
    const cluster = materializeStatements('plan', 'wren', false)
    expect(cluster.map((s) => s.split(' ').slice(0, 7).join(' '))).toEqual([
      'ALTER TABLE events_local ON CLUSTER wren ADD',
      'ALTER TABLE events ON CLUSTER wren ADD',
      'ALTER TABLE events_local ON CLUSTER wren MATERIALIZE',
    ])
  })

  it('has filters and breakdowns read a materialized key from its column and count the others’ JSON reads', () => {
    // No ClickHouse call happens here: column() only consults the columns loaded at start.
    const materializer = new PropertyMaterializer({} as ClickHouseClient, pino({ level: 'silent' }))
    const compile = (key: string) =>
      compileGroup(parsePropertyGroup([{ key, value: 'x', type: 'event' }], 'properties'), {
        params: new SqlParams(),
        columns: eventColumns(new EventPersonId(false), materializer),
        cohortMembers: () => '',
        dateParam: (v) => v,
      })
    expect(compile('$browser')).toContain("nullIf(`mat_$browser`, '')")
    expect(compile('plan')).toContain('JSONExtract(properties')
    expect(materializer.column('plan')).toBeUndefined()
  })
})
