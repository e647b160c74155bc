import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { WrenError } from '../errors'
import { EXPANSION, MemoryBudget } from './memory-budget'
import { payloadText } from './sdk-body'

const refusalOf = (f: () => unknown): WrenError => {
  try {
    f()
  } catch (err) {
    return err as WrenError
  }
  throw new Error('not refused')
}

describe('MemoryBudget', () => {
  it('charges until the limit, then refuses with 503 and Retry-After; a release gives the bytes back once', () => {
    let refused = 0
    const budget = new MemoryBudget(100, () => refused++)
    const a = budget.charge(60)
    const b = budget.charge(40)
    const err = refusalOf(() => budget.charge(1))
    expect(err).toMatchObject({ status: 503, code: 'busy_with_large_requests' })
    expect(Number(err.headers['retry-after'])).toBeGreaterThan(0)
    expect(refused).toBe(1)
    a.release()
    a.release()
    expect(budget.inUse).toBe(40)
    b.release()
    expect(budget.inUse).toBe(0)
  })

  it('admits a charge larger than the whole budget while nothing else holds any, and nothing beside it', () => {
    const budget = new MemoryBudget(100)
    const big = budget.charge(500)
    expect(refusalOf(() => budget.charge(1)).status).toBe(503)
    // A request without a body still passes: it holds nothing.
    budget.charge(0).release()
    big.raise(800)
    expect(budget.inUse).toBe(800)
    big.release()
    expect(budget.inUse).toBe(0)
  })

  it('raises a charge only while it fits; limit 0 never refuses', () => {
    const budget = new MemoryBudget(100)
    const a = budget.charge(10)
    const b = budget.charge(10)
    b.raise(90)
    expect(budget.inUse).toBe(100)
    expect(refusalOf(() => a.raise(11)).status).toBe(503)
    expect(a.bytes).toBe(10)
    const unlimited = new MemoryBudget(0)
    unlimited.charge(1e12)
    expect(() => unlimited.charge(1e12)).not.toThrow()
  })

  it('charges what a compressed body inflates to while decoding', async () => {
    const budget = new MemoryBudget(1_000_000)
    const other = budget.charge(500_000)
    const json = JSON.stringify({ event: 'x', pad: 'y'.repeat(100_000) })
    const body = gzipSync(json)
    const charge = budget.charge(body.length * EXPANSION)
    const request = { path: '/e/', query: {}, headers: { 'content-encoding': 'gzip' }, body }
    await expect(payloadText({ ...request, memory: charge })).rejects.toMatchObject({ status: 503 })
    other.release()
    expect(await payloadText({ ...request, memory: charge })).toBe(json)
    expect(charge.bytes).toBe(json.length * EXPANSION)
  })
})
