import { describe, expect, it } from 'vitest'
import { limitSettings, withSettings } from './limits'

describe('withSettings', () => {
  const bounds = limitSettings({ maxSeconds: 60, maxMemoryBytes: 1024, maxResultRows: 10, maxResultBytes: 0 })

  it('adds a SETTINGS clause, or extends the one a query ends with', () => {
    expect(withSettings('SELECT 1 LIMIT 3', { max_execution_time: 5 })).toBe('SELECT 1 LIMIT 3\nSETTINGS max_execution_time = 5')
    expect(withSettings("SELECT * FROM (SELECT 1) SETTINGS distributed_product_mode = 'local'", { log_comment: "it's" })).toBe(
      "SELECT * FROM (SELECT 1) SETTINGS distributed_product_mode = 'local', log_comment = 'it''s'",
    )
    // A SETTINGS clause inside a subquery is the subquery's: the query gets its own.
    expect(withSettings('SELECT * FROM (SELECT 1 SETTINGS max_threads = 1)', { max_threads: 2 })).toBe(
      'SELECT * FROM (SELECT 1 SETTINGS max_threads = 1)\nSETTINGS max_threads = 2',
    )
    expect(withSettings('SELECT 1', bounds)).toBe(
      "SELECT 1\nSETTINGS max_execution_time = 60, max_memory_usage = 1024, max_bytes_before_external_group_by = 512, max_bytes_before_external_sort = 512, max_result_rows = 10, max_result_bytes = 0, result_overflow_mode = 'throw'",
    )
  })
})
