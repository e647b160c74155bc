// What each process stops, in which order, as `wren roles` prints it (the stop table the lifecycle stops by).
import { describe, expect, it } from 'vitest'
import { describeRuntime } from './describe'
import { ROLE_NAMES, Roles } from './roles'
import { stopOrder, type Mode, type StopStep } from './stop-order'

const processes: Array<[string, Roles, Mode]> = [
  ['wren start', new Roles(['all']), 'embedded'],
  ...ROLE_NAMES.map((role): [string, Roles, Mode] => [`wren ${role}`, new Roles([role]), 'cluster']),
]

describe('the stop order', () => {
  for (const [name, roles, mode] of processes)
    it(`of ${name}: requests stop first, then what reads and writes storage, then the log, ClickHouse and the lock`, () => {
      const order = stopOrder(roles, mode).map((s) => s.name)
      const at = (step: StopStep) => order.indexOf(step)
      expect(order[0]).toBe('http server')
      expect(order.slice(-3)).toEqual(['log', 'clickhouse', 'data directory lock'])
      // Everything between reads or writes the log and ClickHouse: it stops before either closes.
      for (const step of order.slice(1, -3)) expect(at(step)).toBeLessThan(at('log'))
      // What reads configuration stops before the configuration log does.
      for (const step of ['cohort reader', 'home dashboards', 'projects'] as const)
        if (order.includes(step)) expect(at(step)).toBeLessThan(at('config log'))
      expect(at('projects')).toBeLessThan(at('config log'))
      // The processors stop before the lag that watches them.
      if (order.includes('ingestion')) expect(at('ingestion')).toBeLessThan(at('lag events'))
      if (order.includes('recordings')) expect(at('recordings')).toBeLessThan(at('lag snapshots'))
    })

  it('names what each process builds, from the role and stream tables', () => {
    const names = (roles: Roles, mode: Mode) => stopOrder(roles, mode).map((s) => s.name)
    expect(names(new Roles(['capture']), 'cluster')).toEqual([
      'http server',
      'lag snapshots',
      'lag events',
      'projects',
      'config log',
      'log',
      'clickhouse',
      'data directory lock',
    ])
    expect(names(new Roles(['ingest']), 'cluster')).toEqual(expect.arrayContaining(['ingestion', 'person compaction', 'deletions']))
    expect(names(new Roles(['ingest']), 'cluster')).not.toContain('recordings')
    expect(names(new Roles(['decide']), 'cluster')).toEqual(expect.arrayContaining(['person feed', 'cohort reader']))
    expect(names(new Roles(['decide']), 'cluster')).not.toContain('ingestion')
    // An api process waits for person commands' results on the log, unless it runs ingestion itself.
    expect(names(new Roles(['api']), 'cluster')).toContain('command results')
    expect(names(new Roles(['ingest', 'api']), 'cluster')).not.toContain('command results')
    // One process has no feeds: the processor tells decide's snapshot and the persons API directly.
    expect(names(new Roles(['all']), 'embedded')).not.toContain('person feed')
    expect(stopOrder(new Roles(['api']), 'cluster').at(-1)).toEqual({ name: 'data directory lock', when: 'with chDB or the embedded log' })
  })

  it('is what `wren roles` prints for each process', () => {
    const printed = describeRuntime()
    for (const [name, roles, mode] of processes) {
      const line = printed.split('\n').find((l) => l.startsWith(`| \`${name}\``))
      expect(line, name).toBeDefined()
      expect(
        line!
          .match(/`([^`]+)`(?= →| \(|$| \|)/g)!
          .slice(1)
          .map((s) => s.slice(1, -1)),
      ).toEqual(stopOrder(roles, mode).map((s) => s.name))
    }
  })
})
