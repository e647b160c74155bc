import { describe, expect, it } from 'vitest'
import { errorPlace, insightSql, offerAt, searchOfSql, sqlAnswer, sqlInsightQuery, sqlOfSearch, tablesOf, typeOf } from './sql'

const SQL = 'select event\nfrom boom events\nlimit 3'

describe('the SQL page’s model', () => {
  it('keeps the query in the URL, newlines and all', () => {
    expect(sqlOfSearch(`?${searchOfSql(SQL)}`)).toBe(SQL)
    expect(sqlOfSearch('?other=1')).toBeNull()
  })

  it('saves SQL as PostHog’s SQL insight and reads it back from any of its wrappings', () => {
    const query = sqlInsightQuery(SQL)
    expect(query).toEqual({ kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery', query: SQL }, display: 'ActionsTable' })
    expect(insightSql(query)).toBe(SQL)
    expect(insightSql({ kind: 'DataTableNode', source: { kind: 'HogQLQuery', query: SQL } })).toBe(SQL)
    expect(insightSql({ kind: 'HogQLQuery', query: SQL })).toBe(SQL)
    expect(insightSql({ kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [] } })).toBeNull()
    expect(insightSql(null)).toBeNull()
  })

  it('reads a HogQL answer, and a saved insight’s result, as a table', () => {
    const types: Array<[string, string]> = [
      ['event', 'String'],
      ['c', 'UInt64'],
    ]
    const answer = sqlAnswer({ results: [['$pageview', 3]], columns: ['event', 'c'], types, hasMore: true })
    expect(answer).toEqual({ results: [['$pageview', 3]], columns: ['event', 'c'], types, hasMore: true })
    expect(typeOf(answer!.types, 1)).toBe('UInt64')
    expect(typeOf(['String', 'UInt64'], 1)).toBe('UInt64')
    expect(sqlAnswer({ result: [['a']], columns: ['x'], types: null })?.results).toEqual([['a']])
    // A trend's result is no table.
    expect(sqlAnswer({ result: [{ label: 'x', data: [1] }], columns: null })).toBeNull()
  })

  it('finds where an error points: the body’s start and end, its line and column, or the detail’s words', () => {
    const at = SQL.indexOf('boom')
    expect(errorPlace(SQL, { detail: 'x', body: { start: at, end: at + 4 } })).toEqual({ line: 2, column: 5, offset: at, end: at + 4 })
    expect(errorPlace(SQL, { detail: 'x', body: { start: { line: 2, column: 5, offset: at }, end: { offset: at + 4 } } })).toMatchObject({
      line: 2,
      column: 5,
      end: at + 4,
    })
    expect(errorPlace(SQL, { detail: 'x', body: { start: { line: 2, column: 5 } } })).toMatchObject({ offset: at })
    expect(errorPlace(SQL, { detail: 'x', body: { line: 2, column: 5 } })).toMatchObject({ line: 2, column: 5, offset: at })
    expect(errorPlace(SQL, { detail: "Syntax error at line 2, column 6: mismatched input 'boom'" })).toMatchObject({ line: 2, column: 5 })
    expect(errorPlace(SQL, { detail: 'Unknown table' })).toBeNull()
    // A place past the text is kept inside it.
    expect(errorPlace(SQL, { detail: 'x', body: { start: 999 } })).toMatchObject({ line: 3, column: 7, offset: SQL.length })
  })

  it('completes the fields of the tables a query reads, through aliases and lazy joins, and property names', () => {
    const sql = 'select  from events e join persons p on p.id = e.person_id'
    expect(tablesOf(sql)).toEqual([
      { table: 'events', alias: 'e' },
      { table: 'persons', alias: 'p' },
    ])
    expect(offerAt(sql, ['p'])).toMatchObject({ kind: 'fields', fields: ['id', 'created_at', 'properties', 'is_identified'] })
    expect(offerAt(sql, ['e', 'person', 'properties'])).toEqual({ kind: 'properties', of: 'person' })
    expect(offerAt(sql, ['p', 'properties'])).toEqual({ kind: 'properties', of: 'person' })
    expect(offerAt('select  from events', ['properties'])).toEqual({ kind: 'properties', of: 'event' })
    expect(offerAt('select  from events', ['session'])).toMatchObject({
      kind: 'fields',
      fields: expect.arrayContaining(['$session_duration']),
    })
    expect(offerAt('select  from groups', ['properties'])).toEqual({ kind: 'properties', of: 'group' })
    const names = offerAt('select  from sessions', [])
    expect(names).toMatchObject({ kind: 'names', fields: expect.arrayContaining(['$session_duration', 'session_id']) })
    expect(offerAt(sql, ['nothing'])).toBeNull()
  })
})
