// `npm start` (and `npm test`) run scripts/ensure-deps.mjs first: it installs on a fresh clone, again after a
// `git pull` changed package-lock.json, and not otherwise. Run here on a copy of the script in a scratch
// directory whose "install" (WREN_INSTALL_COMMAND) only counts itself, so nothing is really installed.
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile, copyFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

const repoRoot = path.resolve(import.meta.dirname, '../..')

describe('scripts/ensure-deps.mjs', () => {
  let dir = ''
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('installs on the first run, after the lock file changes, and at no other time', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wren-deps-'))
    await mkdir(path.join(dir, 'scripts'))
    await copyFile(path.join(repoRoot, 'scripts/ensure-deps.mjs'), path.join(dir, 'scripts/ensure-deps.mjs'))
    await writeFile(path.join(dir, 'package-lock.json'), '{"lockfileVersion":3,"packages":{"node_modules/a":{"version":"1.0.0"}}}\n')
    // The "install": counts itself and writes npm's record of what it installed, as npm install does.
    const install = `node -e "const fs=require('fs');fs.mkdirSync('node_modules',{recursive:true});fs.writeFileSync('node_modules/.package-lock.json','{}');fs.appendFileSync('installs','x')"`
    const run = async () => {
      const { stderr } = await promisify(execFile)(process.execPath, ['scripts/ensure-deps.mjs'], {
        cwd: dir,
        env: { ...process.env, WREN_INSTALL_COMMAND: install },
      })
      return stderr
    }
    const installs = async () => (await readFile(path.join(dir, 'installs'), 'utf8').catch(() => '')).length

    expect(await run()).toContain('installing dependencies (first run)')
    expect(await installs()).toBe(1)
    expect(await run()).toBe('')
    expect(await installs()).toBe(1)

    // A pull that changes the lock file: installed again, once.
    await writeFile(path.join(dir, 'package-lock.json'), '{"lockfileVersion":3,"packages":{"node_modules/a":{"version":"1.1.0"}}}\n')
    expect(await run()).toContain('package-lock.json changed since the last install')
    expect(await installs()).toBe(2)
    expect(await run()).toBe('')
    expect(await installs()).toBe(2)

    // node_modules installed by hand (no record of ours): a lock file older than the install is taken as it is…
    await rm(path.join(dir, 'node_modules/.wren-lock-hash'))
    const past = new Date(Date.now() - 60_000)
    await utimes(path.join(dir, 'package-lock.json'), past, past)
    expect(await run()).toBe('')
    expect(await installs()).toBe(2)
    // …and one newer than it is installed.
    await rm(path.join(dir, 'node_modules/.wren-lock-hash'))
    await utimes(path.join(dir, 'node_modules/.package-lock.json'), past, past)
    await utimes(path.join(dir, 'package-lock.json'), new Date(), new Date())
    expect(await run()).toContain('newer than the installed packages')
    expect(await installs()).toBe(3)
  })
})
