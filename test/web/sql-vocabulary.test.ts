// What the SQL page's editor completes (web/src/sql.ts) is what Wren's HogQL printer reads
// (services/analytics/hogql/): every table, field, chain and function it offers prints, so a completion never
// leads to a 400.
import { describe, expect, it } from 'vitest'
import { SqlParams } from '../../services/platform/clickhouse/params'
import { aggregateSpec } from '../../services/analytics/hogql/functions'
import { eventChain, sessionField, TABLES } from '../../services/analytics/hogql/schema'
import { CHAINS, HOGQL_FUNCTIONS, HOGQL_TABLES } from '../../web/src/sql'

describe('the SQL editor’s completions', () => {
  it('offer only tables and fields HogQL reads', () => {
    expect(Object.keys(HOGQL_TABLES).sort()).toEqual(Object.keys(TABLES).sort())
    for (const [table, fields] of Object.entries(HOGQL_TABLES)) {
      const def = TABLES[table]
      const names = [...def.columns, ...(def.hidden ?? [])].map(([name]) => name)
      // events' chains (person., session., pdi.) are names too, read through eventChain below.
      const chains = Object.keys(CHAINS[table].joins ?? {})
      expect(
        fields.filter((f) => !names.includes(f) && !chains.includes(f)),
        table,
      ).toEqual([])
      // And every column a table has is offered.
      expect(
        names.filter((n) => !fields.includes(n) && !['person_mode', 'person_properties'].includes(n)),
        table,
      ).toEqual([])
    }
  })

  it('offer only the chains of an event HogQL prints', () => {
    for (const [join, level] of Object.entries(CHAINS.events.joins ?? {}))
      for (const field of level.fields) {
        const session = (name: string) => (sessionField(name) ? { sql: name, kind: 'any' as const } : `${name} is no session field`)
        const printed = eventChain((c) => c, [join, field], new SqlParams(), session)
        expect(typeof printed, `${join}.${field}: ${String(printed)}`).toBe('object')
      }
  })

  it('offer only functions HogQL allows', () => {
    expect(HOGQL_FUNCTIONS.filter((name) => !aggregateSpec(name))).toEqual([])
  })
})
