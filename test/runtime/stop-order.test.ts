// The steps a running `wren start` registered on its lifecycle are the ones `wren roles` prints for it, in
// the order they stop: the printed order is the stop table the lifecycle stops by, and each step in it is
// one this process built.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWren, type TestWren } from '../support/wren'
import { Roles } from '../../services/runtime/roles'
import { stopOrder } from '../../services/runtime/stop-order'

describe('a running wren start', () => {
  let t: TestWren
  beforeAll(async () => {
    t = await startWren()
  })
  afterAll(async () => {
    await t?.close()
  })

  it('stops what `wren roles` says, in that order', () => {
    const printed = stopOrder(new Roles(['all']), 'embedded').map((step) => step.name)
    expect(t.wren.stopOrder()).toEqual(printed)
    expect(printed[0]).toBe('http server')
    expect(printed.indexOf('ingestion')).toBeLessThan(printed.indexOf('clickhouse'))
    expect(printed.indexOf('recordings')).toBeLessThan(printed.indexOf('clickhouse'))
    expect(printed.indexOf('http server')).toBeLessThan(printed.indexOf('log'))
  })
})
