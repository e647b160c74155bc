import { describe, expect, it } from 'vitest'
import { hashPassword, verifyPassword } from './passwords'

describe('passwords', () => {
  it('checks a password against its hash, and nothing against no hash', async () => {
    const stored = await hashPassword('correct horse battery')
    expect(stored).toMatch(/^scrypt\$32768\$8\$3\$/)
    expect(await verifyPassword('correct horse battery', stored)).toBe(true)
    expect(await verifyPassword('wrong horse battery', stored)).toBe(false)
    expect(await verifyPassword('correct horse battery', null)).toBe(false)
  })
})
