import { describe, expect, it } from 'vitest'
import pino from 'pino'
import { Lifecycle } from './lifecycle'
import type { StopStep } from './stop-order'

describe('Lifecycle', () => {
  it("stops the components in the stop table's order, goes on past a failing step, and stops once", async () => {
    const lifecycle = new Lifecycle(pino({ level: 'silent' }))
    const stopped: string[] = []
    // Registered in another order than the table's: a job built before the server, the lock after the log.
    const registered: StopStep[] = ['clickhouse', 'log', 'data directory lock', 'ingestion', 'deletions', 'http server', 'config log']
    for (const name of registered)
      lifecycle.started(name, name, (n) => {
        stopped.push(n)
        if (n === 'ingestion') throw new Error('ingestion would not stop')
      })
    const order = ['http server', 'deletions', 'ingestion', 'config log', 'log', 'clickhouse', 'data directory lock']
    expect(lifecycle.order()).toEqual(order)
    await expect(lifecycle.stop()).rejects.toThrow('ingestion would not stop')
    expect(stopped).toEqual(order)
    await expect(lifecycle.stop()).rejects.toThrow('ingestion would not stop')
    expect(stopped).toHaveLength(order.length)
  })

  it('refuses a step the stop table does not name', () => {
    const lifecycle = new Lifecycle(pino({ level: 'silent' }))
    expect(() => lifecycle.started('cache' as StopStep, null, () => {})).toThrow("'cache' is not a step of the stop table")
  })
})
