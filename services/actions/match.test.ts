import { describe, expect, it } from 'vitest'
import { SqlParams } from '../platform/clickhouse/params'
import { eventColumns } from '../analytics/property-filters/sql'
import { EventPersonId } from '../analytics/sql/persons-sql'
import { actionSql, validateSteps } from './match'
import type { Action } from './store'

const EVENT_COLUMNS = eventColumns(new EventPersonId(false))

const action = (steps: Action['steps']): Action => ({
  id: 1,
  teamId: 1,
  name: 'a',
  description: '',
  steps,
  tags: [],
  createdAt: '',
  updatedAt: '',
  deleted: false,
  version: 1,
})

describe('action steps', () => {
  it('defaults url matching to contains and rejects bad steps', () => {
    expect(validateSteps([{ event: '$pageview', url: '/x' }])[0]).toMatchObject({ event: '$pageview', url: '/x', url_matching: 'contains' })
    expect(() => validateSteps([{ url_matching: 'fuzzy', url: '/x' }])).toThrow(/contains, exact or regex/)
    expect(() => validateSteps({ event: 'x' })).toThrow(/list/)
    expect(() => validateSteps([{ event: 'x', properties: [{ key: 'k', operator: 'nope' }] }])).toThrow(/unknown operator/)
  })

  it('ORs steps, ANDs their parts, and uses element parts only for $autocapture', () => {
    const params = new SqlParams()
    const sql = actionSql(action([{ event: 'a' }, { event: '$pageview', text: 'Buy' }, { event: '$autocapture', text: 'Buy' }]), {
      params,
      columns: EVENT_COLUMNS,
      cohortMembers: () => '',
      dateParam: (v) => v,
    })
    expect(sql.startsWith('(event = {p0:String} OR event = {p1:String} OR (event = {p2:String} AND arrayExists(')).toBe(true)
    expect(actionSql(action([]), { params, columns: EVENT_COLUMNS, cohortMembers: () => '', dateParam: (v) => v })).toBe('1')
  })
})
