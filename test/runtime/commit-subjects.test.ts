// Commit subjects say what changed in at most 72 characters; the why goes in the body. History before the
// rule (up to e79fcb3) is left as it was. A clone without that history (shallow) has nothing to check.
import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const repo = path.resolve(import.meta.dirname, '../..')
const RULE_FROM = 'e79fcb3'
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
const hasHistory = (() => {
  try {
    git('cat-file', '-e', `${RULE_FROM}^{commit}`)
    return true
  } catch {
    return false
  }
})()

describe('commit subjects', () => {
  it.skipIf(!hasHistory)('are at most 72 characters since the rule began (skipped: no git history here)', () => {
    const subjects = git('log', '--format=%h %s', `${RULE_FROM}..HEAD`).split('\n').filter(Boolean)
    const long = subjects.filter((line) => line.slice(line.indexOf(' ') + 1).length > 72)
    expect(long).toEqual([])
  })
})
