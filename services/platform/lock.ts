// One process owns a data directory (chDB and the embedded log both assume it). The lock is a listening Unix
// socket, which the kernel closes when its process dies however it dies: a pid file outlived a SIGKILL while
// the dead process was still a zombie (a restart within a second was refused), and a recycled pid blocked
// start-up. On Linux the socket lives in the abstract namespace, named after the directory's real path, so
// nothing is left on disk and two starters cannot both take over a stale file. Elsewhere (macOS) it is a socket
// file in the directory: one that nobody answers on is stale and replaced. wren.lock holds the holder's pid,
// only to name it in the error.
import { createHash } from 'node:crypto'
import { mkdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import net from 'node:net'
import path from 'node:path'

export class DataDirLockedError extends Error {}

/** How long a start waits for a holder that is still dying (its sockets close only after its memory is freed). */
const WAIT_FOR_DYING_HOLDER_MS = 3_000

export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true })
  const address = await lockAddress(dataDir)
  const pidFile = path.join(dataDir, 'wren.lock')
  const deadline = Date.now() + WAIT_FOR_DYING_HOLDER_MS
  for (;;) {
    const server = await listen(address)
    if (server) {
      await writeFile(pidFile, String(process.pid))
      return async () => {
        await rm(pidFile, { force: true })
        await new Promise<void>((resolve) => server.close(() => resolve()))
      }
    }
    if (Date.now() > deadline) {
      const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim())
      throw new DataDirLockedError(
        `Data directory ${dataDir} is in use by ${pid ? `Wren process ${pid}` : 'another Wren process'}. Stop it first, or use the HTTP API.`,
      )
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

async function lockAddress(dataDir: string): Promise<string> {
  const real = await realpath(dataDir)
  if (process.platform === 'linux') return `\0wren-lock-${createHash('sha256').update(real).digest('hex').slice(0, 40)}`
  return path.join(real, 'wren.lock.sock')
}

/** The listening server, or null when another live process holds the address. */
async function listen(address: string): Promise<net.Server | null> {
  const attempt = () =>
    new Promise<net.Server | null>((resolve, reject) => {
      const server = net.createServer((socket) => socket.destroy())
      server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(null) : reject(err)))
      server.listen(address, () => resolve(server.unref()))
    })
  const server = await attempt()
  if (server || address.startsWith('\0')) return server
  // A socket file: taken over when nobody answers on it (its process died).
  if (await answers(address)) return null
  await rm(address, { force: true })
  return attempt()
}

function answers(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(address)
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}
