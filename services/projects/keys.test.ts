import { describe, expect, it } from 'vitest'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from './store'

describe('generateKey', () => {
  // Cutting symbols out of base64 once left a key short about one time in twenty (a CI run met one).
  it('always gives the prefix and 40 letters and digits, never the same key twice', () => {
    const keys = new Set<string>()
    for (let i = 0; i < 2_000; i++) {
      const key = generateKey(i % 2 ? PERSONAL_KEY_PREFIX : PROJECT_KEY_PREFIX)
      expect(key).toMatch(/^ph[cx]_[A-Za-z0-9]{40}$/)
      keys.add(key)
    }
    expect(keys.size).toBe(2_000)
  })
})
