// How the CLI reaches a Wren that owns the data directory. While `wren start` serves the API on a data
// directory, it publishes wren.control.json there: its URL, its pid and a key of its own (a key with every
// scope, held in its memory only: projects/store.ts createProcessKey), so that `wren keys|projects|dead-letters`
// run through its API instead of refusing the locked directory. The file is readable by its owner only, and
// that is the boundary: whoever can read the data directory can already read all of Wren's data (chDB's files
// and the log are there), so the key gives them nothing more. The key dies with the process.
import { readFile, rename, rm, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import path from 'node:path'

export const CONTROL_FILE = 'wren.control.json'

export interface Control {
  url: string
  pid: number
  key: string
}

/** Writes the control file (atomically: a reader never sees half of it); returns what removes it. */
export async function publishControl(dataDir: string, control: Control): Promise<() => Promise<void>> {
  const file = path.join(dataDir, CONTROL_FILE)
  const written = `${file}.${process.pid}.tmp`
  await writeFile(written, JSON.stringify(control), { mode: 0o600 })
  await rename(written, file)
  return () => rm(file, { force: true })
}

/** The control file of a live process, or null (none, unreadable, or left by a process that has died). */
export async function readControl(dataDir: string): Promise<Control | null> {
  let control: Partial<Control>
  try {
    control = JSON.parse(await readFile(path.join(dataDir, CONTROL_FILE), 'utf8')) as Partial<Control>
  } catch {
    return null
  }
  const { url, pid, key } = control
  if (typeof url !== 'string' || typeof pid !== 'number' || typeof key !== 'string' || !isAlive(pid)) return null
  return { url, pid, key }
}

/** Where a process on this machine reaches a server listening on `address` (a wildcard address: loopback). */
export function localUrl(address: AddressInfo | string | null): string {
  if (address === null || typeof address === 'string') throw new Error(`Wren is not listening on a TCP port (${address}).`)
  const host = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}
