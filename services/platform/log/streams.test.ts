// The stream table is the one place a consumer group is named: every subscription takes its topic and group
// from its row, and no other source file spells a group.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { groupName, kafkaRetentionMs, STREAMS, subscription } from './streams'
import { TOPICS } from './log'

const services = path.resolve(import.meta.dirname, '../..')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(file)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [file] : []
  })
}

describe('the stream rows', () => {
  it('give each consumer its topic and group', () => {
    expect(subscription('events')).toEqual({ topic: TOPICS.ingest, group: 'ingestion' })
    expect(subscription('snapshots')).toEqual({ topic: TOPICS.snapshots, group: 'recordings' })
    expect(subscription('config-ids')).toEqual({ topic: TOPICS.config, group: 'wren-config-ids' })
    // A stream every process reads in full: a group of the process's own, new for each subscription.
    const feed = subscription('person-changes')
    expect(feed.topic).toBe(TOPICS.personChanges)
    expect(feed.group).toMatch(/^wren-decide-.+/)
    expect(feed.from).toBe('end')
    expect(subscription('person-changes').group).not.toBe(feed.group)
    expect(subscription('command-results').group).toMatch(/^wren-api-.+/)
    expect(subscription('config').group).toMatch(/^wren-config-.+/)
    expect(subscription('config').from).toBeUndefined()
  })

  it('name every group: no other source file spells one', () => {
    // In the files that read the log (a subscription, a batch runner, a group's offsets): a group written as
    // a literal (`group: '…'`, `…_GROUP = '…'`) or made with processGroup() rather than taken from a row.
    const readsLog = /\.subscribe\(|new BatchRunner\(|\.stats\(|_GROUP\b/
    const literal = /\bgroup\s*:\s*['"`]|_GROUP\s*=\s*['"`]|\bprocessGroup\(/g
    const spelled: string[] = []
    for (const file of sourceFiles(services)) {
      const name = path.relative(services, file)
      if (name === path.join('platform', 'log', 'streams.ts') || name === path.join('platform', 'log', 'log.ts')) continue
      const text = readFileSync(file, 'utf8')
      if (!readsLog.test(text)) continue
      for (const match of text.matchAll(literal)) spelled.push(`${name}: ${match[0]}`)
    }
    expect(spelled).toEqual([])
  })

  it('give the Kafka log the retention of the topics that keep less than the broker default', () => {
    const tenMinutes = 10 * 60_000
    expect(Object.fromEntries(kafkaRetentionMs())).toEqual({
      [TOPICS.personChanges]: tenMinutes,
      [TOPICS.commandResults]: tenMinutes,
      [TOPICS.config]: tenMinutes,
    })
  })

  it('show each group as the docs name it', () => {
    expect(STREAMS.map((s) => groupName(s))).toEqual([
      'ingestion',
      'recordings',
      'wren-decide-<process>',
      'wren-api-<process>',
      'wren-config-<process>',
      'wren-config-ids',
      '(none)',
    ])
  })
})
