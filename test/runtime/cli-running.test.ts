// `wren projects|keys|dead-letters` while Wren runs on the data directory: they go through its API with the
// key of its control file (wren.control.json, owner-only), and their effects are what the API shows. That
// key is listed nowhere and dies with its process; a data directory locked by a process that publishes no
// control file is refused with a clear message after a short wait.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { networkInterfaces, tmpdir } from 'node:os'
import path from 'node:path'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { api, captureBatch, spawnWren, waitFor, wrenCli, wrenEntry, type WrenProcess } from '../support/wren'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'
import { lockDataDir } from '../../services/platform/lock'

describe('the CLI while Wren runs', () => {
  const env = {
    WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX),
    WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX),
    WREN_INGEST_MAX_RETRIES: '2',
    WREN_FAILPOINTS: 'ingest-poison-event=poison',
  }
  let dataDir = ''
  let server: WrenProcess | null = null
  const call = () => api({ url: server!.url, personalKey: env.WREN_PERSONAL_API_KEY })
  const wren = (...args: string[]): Promise<Array<Record<string, any>>> => wrenCli(dataDir, ...args)
  const controlFile = () => path.join(dataDir, 'wren.control.json')

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wren-cli-running-'))
    server = await spawnWren(dataDir, env)
  })
  afterAll(async () => {
    await server?.stop()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('listens on this machine only when HOST is unset, and its start line names that address', async () => {
    const { port } = new URL(server!.url)
    const startLine = await waitFor(async () => /^Wren .* is listening on .*$/m.exec(server!.output())?.[0], { what: 'the start line' })
    expect(startLine).toContain(`is listening on 127.0.0.1:${port}, this machine only`)
    expect(startLine).toContain(`web app at http://127.0.0.1:${port}/`)
    // Every address it prints (the web app, the SDKs' api_host) is the one it listens on.
    const printed = new Set([...server!.output().matchAll(/https?:\/\/[^\s/'")]+/g)].map((m) => m[0]))
    expect(printed).toEqual(new Set([`http://127.0.0.1:${port}`]))
    // Another address of this machine is refused (on a machine that has one).
    const other = Object.values(networkInterfaces())
      .flat()
      .find((i) => i?.family === 'IPv4' && !i.internal)
    if (other) await expect(fetch(`http://${other.address}:${port}/_health`)).rejects.toThrow()
  })

  it('creates and lists projects and keys, and revokes a key, as the API then shows', async () => {
    const [project] = await wren('projects', 'create', 'Made while running')
    expect(project).toEqual({ id: expect.any(Number), name: 'Made while running', api_token: expect.stringMatching(/^phc_/) })
    const listed = await call()('GET', '/api/projects/')
    expect(listed.body.results.map((p: any) => ({ id: p.id, name: p.name, api_token: p.api_token }))).toEqual(
      await wren('projects', 'list'),
    )
    expect(listed.body.results.map((p: any) => p.id)).toContain(project.id)

    const [key] = await wren('keys', 'create', '--scopes', 'project:read', '--projects', String(project.id), '--label', 'live')
    expect(key).toMatchObject({ scopes: ['project:read'], scoped_teams: [project.id] })
    const asKey = api({ url: server!.url, personalKey: key.value })
    expect((await asKey('GET', `/api/projects/${project.id}/`)).status).toBe(200)

    const keys = await wren('keys', 'list')
    expect(keys.map((k) => [k.id, k.label])).toEqual([
      [expect.any(String), 'bootstrap'],
      [key.id, 'live'],
    ])
    // The same lines as the API's (but for when the caller's own key was last used: by this very request).
    const unused = ({ last_used_at: _, ...k }: Record<string, any>) => k
    expect(keys.map(unused)).toEqual((await call()('GET', '/api/personal_api_keys/')).body.results.map(unused))

    expect(await wren('keys', 'revoke', key.id)).toEqual([{ id: key.id, revoked: true }])
    expect((await asKey('GET', `/api/projects/${project.id}/`)).status).toBe(401)
    expect((await wren('keys', 'list')).map((k) => k.id)).not.toContain(key.id)
    await expect(wren('keys', 'revoke', key.id)).rejects.toThrow(/No personal API key/)
  }, 120_000)

  it('lists and replays dead letters', async () => {
    await captureBatch({ url: server!.url, projectKey: env.WREN_PROJECT_API_KEY }, [
      { event: 'poison', distinct_id: 'user-1', properties: {} },
    ])
    await waitFor(async () => (await call()('GET', '/api/dead_letters/')).body?.count === 1, {
      timeoutMs: 30_000,
      what: 'the dead letter',
    })
    const letters = await wren('dead-letters', 'list')
    expect(letters).toEqual((await call()('GET', '/api/dead_letters/')).body.results)
    expect(letters).toHaveLength(1)
    expect(await wren('dead-letters', 'replay', '--id', letters[0].id)).toEqual([{ replayed: 1, ids: [letters[0].id] }])
    expect((await call()('GET', '/api/dead_letters/')).body.results.find((l: any) => l.id === letters[0].id).replayed_at).not.toBeNull()
  }, 120_000)

  it('uses a key of the process that is listed nowhere, and dies with it', async () => {
    expect((await stat(controlFile())).mode & 0o777).toBe(0o600)
    const control = JSON.parse(await readFile(controlFile(), 'utf8'))
    expect(control).toMatchObject({ url: server!.url, pid: server!.child.pid })
    const asControl = api({ url: server!.url, personalKey: control.key })
    expect((await asControl('GET', '/api/projects/')).status).toBe(200)
    const listed = (await call()('GET', '/api/personal_api_keys/')).body.results
    expect(JSON.stringify(listed)).not.toContain(control.key.slice(-4))
    expect((await asControl('GET', '/api/personal_api_keys/')).body.results.map((k: any) => k.id)).toEqual(listed.map((k: any) => k.id))

    expect(await server!.stop()).toBe(0)
    await expect(stat(controlFile())).rejects.toThrow(/ENOENT/)
    // Stopped: the CLI opens storage itself, and the process key was never stored.
    const offline = await wren('keys', 'list')
    expect(offline.map((k) => k.id)).toEqual(listed.map((k: any) => k.id))

    server = await spawnWren(dataDir, env)
    // The restarted process writes its control file just after it starts to answer.
    const next = JSON.parse(
      await waitFor(() => readFile(controlFile(), 'utf8').catch(() => null), { what: 'the restarted process’s control file' }),
    )
    expect(next.key).not.toBe(control.key)
    expect((await api({ url: server.url, personalKey: control.key })('GET', '/api/projects/')).status).toBe(401)
    expect((await call()('GET', '/api/projects/')).status).toBe(200)
  }, 180_000)

  it('refuses, after a short wait, a data directory held by a process that publishes no control file', async () => {
    const held = await mkdtemp(path.join(tmpdir(), 'wren-cli-held-'))
    const unlock = await lockDataDir(held)
    try {
      const entry = await wrenEntry()
      const failed = await promisify(execFile)(process.execPath, [...entry.args, 'keys', 'list'], {
        cwd: entry.cwd,
        // The short wait for a control file (WREN_CLI_WAIT_MS, 10 s by default) shortened: none will come.
        env: { ...process.env, WREN_DATA_DIR: held, LOG_LEVEL: 'warn', WREN_CLI_WAIT_MS: '500' },
      }).then(
        () => null,
        (err: { code: number; stderr: string }) => err,
      )
      expect(failed?.code).toBe(1)
      expect(failed?.stderr).toContain(`Data directory ${held} is in use by Wren process ${process.pid}`)
      expect(failed?.stderr).toContain('does not answer the CLI (no live wren.control.json)')
    } finally {
      await unlock()
      await rm(held, { recursive: true, force: true })
    }
  }, 60_000)
})
