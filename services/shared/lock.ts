// One process owns a data directory (chDB and the embedded log both assume it). A lock left behind by a
// killed process is taken over when its pid is no longer alive.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'

export class DataDirLockedError extends Error {}

export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true })
  const file = path.join(dataDir, 'wren.lock')
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(file, String(process.pid), { flag: 'wx' })
      return () => rm(file, { force: true })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim())
      if (pid && pid !== process.pid && isAlive(pid)) {
        throw new DataDirLockedError(`Data directory ${dataDir} is in use by Wren process ${pid}. Stop it first, or use the HTTP API.`)
      }
      await rm(file, { force: true })
    }
  }
  throw new DataDirLockedError(`Could not lock data directory ${dataDir}.`)
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}
