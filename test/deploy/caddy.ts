// Debian's caddy with infra/Caddyfile in front of Wren's processes, for the deployment tests and
// bench/cluster.ts (apt-get install caddy).
import { spawn, spawnSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { freePort, waitFor } from '../support/wren'

const CADDYFILE = path.resolve(import.meta.dirname, '../../infra/Caddyfile')

/** Why caddy cannot run here, or null. */
export function caddyMissing(): string | null {
  const found = spawnSync('caddy', ['version'], { encoding: 'utf8' })
  return found.status === 0 ? null : 'caddy is not installed (apt-get install caddy)'
}

export interface Caddy {
  /** The proxy's one public address, http://127.0.0.1:<port>. */
  url: string
  output(): string
  stop(): Promise<void>
}

/**
 * Runs infra/Caddyfile as compose does, its upstream groups given as host:port lists; resolves once the
 * proxy answers /_readyz through the api group.
 */
export async function startCaddy(upstreams: { capture: string[]; decide: string[]; api: string[] }): Promise<Caddy> {
  const dir = await mkdtemp(path.join(tmpdir(), 'wren-caddy-'))
  const port = await freePort()
  let output = ''
  const caddy = spawn('caddy', ['run', '--config', CADDYFILE, '--adapter', 'caddyfile'], {
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      XDG_DATA_HOME: dir,
      XDG_CONFIG_HOME: dir,
      WREN_PROXY_SITE: `http://:${port}`,
      WREN_CAPTURE_UPSTREAMS: upstreams.capture.join(' '),
      WREN_DECIDE_UPSTREAMS: upstreams.decide.join(' '),
      WREN_API_UPSTREAMS: upstreams.api.join(' '),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  caddy.stdout!.on('data', (d: Buffer) => (output += d.toString()))
  caddy.stderr!.on('data', (d: Buffer) => (output += d.toString()))
  const url = `http://127.0.0.1:${port}`
  const stop = async () => {
    if (caddy.exitCode === null && caddy.signalCode === null) {
      const exited = new Promise((resolve) => caddy.once('exit', resolve))
      caddy.kill('SIGTERM')
      await exited
    }
    await rm(dir, { recursive: true, force: true })
  }
  try {
    await waitFor(
      async () => {
        if (caddy.exitCode !== null) throw new Error(`caddy exited with ${caddy.exitCode}:\n${output}`)
        return (await fetch(`${url}/_readyz`).catch(() => null))?.ok
      },
      { what: 'caddy to answer', timeoutMs: 30_000 },
    )
  } catch (e) {
    await stop()
    throw e
  }
  return { url, output: () => output, stop }
}
