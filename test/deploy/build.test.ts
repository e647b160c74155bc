// `npm run build` makes a Wren that runs as plain JavaScript: the build, written into an empty directory
// (as the image's build stage does), starts with `node <out>/services/main.js start`, no tsx and no source
// tree beside it, and serves the app, the player and posthog-js from what the build made.
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'
import { api, captureBatch, spawnWren, waitFor, type WrenProcess } from '../support/wren'

const repoRoot = path.resolve(import.meta.dirname, '../..')

describe('npm run build', () => {
  let dir = ''
  let wren: WrenProcess | null = null
  afterAll(async () => {
    await wren?.stop()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('makes a Wren that starts with node alone and serves the app, the player and posthog-js it built', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wren-build-'))
    const out = path.join(dir, 'app', 'dist')
    // The npm script itself, as the Dockerfile runs it, writing into the temporary directory.
    await promisify(execFile)('npm', ['run', '--silent', 'build', '--', out], { cwd: repoRoot })
    // The image puts node_modules beside dist/; nothing else of the repository is there.
    await symlink(path.join(repoRoot, 'node_modules'), path.join(dir, 'app', 'node_modules'))

    const keys = { WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX), WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX) }
    wren = await spawnWren(path.join(dir, 'data'), keys, 'start', { args: [path.join(out, 'services', 'main.js')], cwd: dir })

    const ready = await fetch(`${wren.url}/_readyz`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toMatchObject({ status: 'ready', roles: ['all'] })

    const page = await fetch(`${wren.url}/`)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<script src="/static/wren/app.js"></script>')
    // The app and the player are the bundles the build wrote (there is no web/ or player source to bundle here).
    for (const [url, file] of [
      ['/static/wren/app.js', 'app.js'],
      ['/static/wren/app.css', 'app.css'],
      ['/static/wren/sql-editor.js', 'sql-editor.js'],
      ['/static/wren/player.js', 'player.js'],
      ['/static/wren/player.css', 'player.css'],
    ]) {
      const res = await fetch(wren.url + url)
      expect(res.status, url).toBe(200)
      expect(Buffer.from(await res.arrayBuffer()).equals(await readFile(path.join(out, 'browser', file))), url).toBe(true)
    }
    const arrayJs = await fetch(`${wren.url}/static/array.js`)
    expect(arrayJs.status).toBe(200)
    expect(await arrayJs.text()).toContain('posthog')

    // An event goes through capture and the compiled ingestion worker into storage, and the API reads it.
    await captureBatch({ url: wren.url, projectKey: keys.WREN_PROJECT_API_KEY }, [{ event: 'built', distinct_id: 'user-1' }])
    const call = api({ url: wren.url, personalKey: keys.WREN_PERSONAL_API_KEY })
    const events = await waitFor(
      async () => {
        const res = await call('GET', '/api/projects/@current/events/?event=built')
        return res.body?.results?.length === 1 ? res.body.results : null
      },
      { what: 'the event through the built Wren' },
    )
    expect(events[0]).toMatchObject({ event: 'built', distinct_id: 'user-1' })
    expect(events[0].person_id).toEqual(expect.any(String))
    expect(wren.output()).not.toMatch(/error/i)
  }, 120_000)
})
