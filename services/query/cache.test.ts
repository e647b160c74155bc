import { describe, expect, it } from 'vitest'
import { QueryCache, type CachedAnswer } from './cache'

const answer = (rows: number): CachedAnswer => ({
  answer: { results: Array.from({ length: rows }, (_, i) => [`row ${i}`, i]) },
  lastRefresh: '2026-11-28T00:00:00Z',
  version: 'v1',
})

describe('QueryCache', () => {
  it('keeps answers within its bytes, the least recently used going first', () => {
    const one = 2 * JSON.stringify(answer(1_000).answer).length
    const cache = new QueryCache(500, one * 4)
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, answer(1_000))
    cache.get('a') // used: b is now the oldest
    cache.set('e', answer(1_000))
    expect(['a', 'b', 'c', 'd', 'e'].map((k) => cache.get(k) !== undefined)).toEqual([true, false, true, true, true])
  })

  it('does not keep an answer larger than a quarter of its bytes, nor let it push others out', () => {
    const one = 2 * JSON.stringify(answer(1_000).answer).length
    const cache = new QueryCache(500, one * 4)
    cache.set('small', answer(1_000))
    cache.set('huge', answer(2_000))
    expect(cache.get('huge')).toBeUndefined()
    expect(cache.get('small')?.answer).toEqual(answer(1_000).answer)
  })

  it('still keeps at most its count of entries', () => {
    const cache = new QueryCache(2)
    for (const key of ['a', 'b', 'c']) cache.set(key, answer(1))
    expect(['a', 'b', 'c'].map((k) => cache.get(k) !== undefined)).toEqual([false, true, true])
  })
})
