// The data-directory lock is released by the kernel when its process dies: a restart right after a SIGKILL
// starts (even while the killed process is still a zombie its parent has not reaped), a stale wren.lock
// naming a live but unrelated process does not block start-up, and a second live Wren is still refused.
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { spawn, type ChildProcess } from 'node:child_process'
import { seedMigrated, spawnWren, waitFor, wrenEntry, type WrenProcess } from '../support/wren'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'

const env = { WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX), WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX) }

describe('data directory lock', () => {
  const cleanup: Array<() => Promise<unknown> | unknown> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step()
  })
  const newDataDir = async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'wren-lock-'))
    cleanup.push(() => rm(dir, { recursive: true, force: true }))
    return dir
  }
  const started = (wren: WrenProcess) => {
    cleanup.push(() => wren.stop('SIGKILL'))
    return wren
  }

  it('a restart right after SIGKILL starts, while the killed process is still an unreaped zombie', async () => {
    const dataDir = await newDataDir()
    // Wren under a parent that never reaps it (a shell that execs sleep): once killed, it stays a zombie
    // and its pid stays taken, as under a supervisor that has not reaped it yet.
    const port = 20000 + Math.floor(Math.random() * 20000)
    const entry = await wrenEntry()
    await seedMigrated(dataDir, env)
    const parent: ChildProcess = spawn('sh', ['-c', `"$0" "$@" start & echo $!; exec sleep 600`, process.execPath, ...entry.args], {
      cwd: entry.cwd,
      env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', WREN_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    cleanup.push(() => parent.kill('SIGKILL'))
    const pid = await new Promise<number>((resolve) =>
      parent.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim().split('\n')[0]))),
    )
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/_health`).catch(() => null))?.ok, {
      timeoutMs: 60_000,
      what: 'the first Wren to start',
    })
    expect(Number(await readFile(path.join(dataDir, 'wren.lock'), 'utf8'))).toBe(pid)

    process.kill(pid, 'SIGKILL')
    await waitFor(async () => (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].startsWith('Z'), {
      what: 'the killed Wren to be a zombie',
    })
    const restarted = started(await spawnWren(dataDir, env))
    expect((await fetch(`${restarted.url}/_health`)).status).toBe(200)
  })

  // One Wren for both (a start is 2 to 4 s of CPU): the one that started despite the stale lock holds the directory.
  it('starts despite a stale wren.lock naming a live, unrelated process; refuses a second Wren, naming the pid that holds it', async () => {
    const dataDir = await newDataDir()
    await writeFile(path.join(dataDir, 'wren.lock'), String(process.pid))
    const first = started(await spawnWren(dataDir, env))
    expect((await fetch(`${first.url}/_health`)).status).toBe(200)
    expect(Number(await readFile(path.join(dataDir, 'wren.lock'), 'utf8'))).toBe(first.child.pid)

    const entry = await wrenEntry()
    const second = spawn(process.execPath, [...entry.args, 'start'], {
      cwd: entry.cwd,
      env: { ...process.env, ...env, PORT: '0', HOST: '127.0.0.1', WREN_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    cleanup.push(() => second.kill('SIGKILL'))
    let output = ''
    second.stdout!.on('data', (d: Buffer) => (output += d.toString()))
    second.stderr!.on('data', (d: Buffer) => (output += d.toString()))
    const code = await new Promise<number | null>((resolve) => second.once('exit', resolve))
    expect(code).toBe(1)
    expect(output).toContain(`Data directory ${dataDir} is in use by Wren process ${first.child.pid}`)
    // The first one is unaffected.
    expect((await fetch(`${first.url}/_health`)).status).toBe(200)
  })
})
