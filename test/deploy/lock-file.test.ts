// A fresh clone installs with `npm ci` (CI does: .ci/run). npm ci refuses a lock file that lacks an entry
// for any optional dependency, even one for another platform that it would never fetch here: chDB's
// binaries for macOS and arm64 Linux, which `npm install` on this machine leaves out of the lock when the
// registry it reaches does not serve them. Checked offline with a dry run on a copy of the two files.
import { execFile } from 'node:child_process'
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

const repoRoot = path.resolve(import.meta.dirname, '../..')

describe('package-lock.json', () => {
  let dir = ''
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('lists every optional dependency, so npm ci installs from it', async () => {
    const lock = JSON.parse(await readFile(path.join(repoRoot, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { optionalDependencies?: Record<string, string> }>
    }
    const missing = Object.values(lock.packages)
      .flatMap((p) => Object.keys(p.optionalDependencies ?? {}))
      .filter((name) => !lock.packages[`node_modules/${name}`])
    expect(missing).toEqual([])

    dir = await mkdtemp(path.join(tmpdir(), 'wren-lock-'))
    for (const file of ['package.json', 'package-lock.json']) await copyFile(path.join(repoRoot, file), path.join(dir, file))
    // An empty cache and --offline: the answer comes from the two files alone.
    const ci = await promisify(execFile)(
      'npm',
      ['ci', '--dry-run', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--cache', path.join(dir, 'cache')],
      { cwd: dir },
    ).catch((err: { code: number; stderr: string }) => ({ stdout: '', stderr: `exit ${err.code}: ${err.stderr}` }))
    expect(ci.stderr).not.toMatch(/npm error/)
    expect(ci.stdout).toMatch(/added \d+ packages/)
  })
})
