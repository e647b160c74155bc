import { describe, expect, it } from 'vitest'
import pino from 'pino'
import { Lifecycle } from './lifecycle'

describe('Lifecycle', () => {
  it('stops the components last started first, goes on past a failing step, and stops once', async () => {
    const lifecycle = new Lifecycle(pino({ level: 'silent' }))
    const stopped: string[] = []
    for (const name of ['lock', 'storage', 'processor', 'server'])
      lifecycle.started(name, name, (n) => {
        stopped.push(n)
        if (n === 'processor') throw new Error('processor would not stop')
      })
    await expect(lifecycle.stop()).rejects.toThrow('processor would not stop')
    expect(stopped).toEqual(['server', 'processor', 'storage', 'lock'])
    await expect(lifecycle.stop()).rejects.toThrow('processor would not stop')
    expect(stopped).toHaveLength(4)
  })
})
