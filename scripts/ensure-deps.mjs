// Installs npm dependencies when they are missing or stale, so `npm start` and `npm test` work from a fresh
// clone and after a `git pull` that changed package-lock.json. After an install it records the lock file's
// hash in node_modules/.wren-lock-hash, and installs again when the lock file's hash differs from it. With no
// record (node_modules installed by hand, or before this script kept one), a lock file newer than npm's own
// record of the install (node_modules/.package-lock.json) counts as changed.
// WREN_INSTALL_COMMAND replaces `npm install` (its test, test/deploy/ensure-deps.test.ts). npm install rather than
// npm ci (which CI runs in its fresh clone): both install what the lock file says, and npm install does not delete
// node_modules first (a checkout may link another's).
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { execSync } from 'node:child_process'

const root = new URL('..', import.meta.url)
const lock = new URL('package-lock.json', root)
const npmRecord = new URL('node_modules/.package-lock.json', root)
const record = new URL('node_modules/.wren-lock-hash', root)
const hashOf = () => createHash('sha256').update(readFileSync(lock)).digest('hex')

function why() {
  if (!existsSync(npmRecord)) return 'first run'
  if (!existsSync(lock)) return null
  if (existsSync(record))
    return readFileSync(record, 'utf8').trim() === hashOf() ? null : 'package-lock.json changed since the last install'
  return statSync(lock).mtimeMs > statSync(npmRecord).mtimeMs ? 'package-lock.json is newer than the installed packages' : null
}

const reason = why()
if (reason) {
  console.error(`wren: installing dependencies (${reason})…`)
  execSync(process.env.WREN_INSTALL_COMMAND ?? 'npm install --no-audit --no-fund', { stdio: 'inherit', cwd: root })
}
// Recorded after every install (npm install may rewrite the lock file) and on the first run that has none.
if (existsSync(lock) && existsSync(npmRecord) && (reason || !existsSync(record))) writeFileSync(record, `${hashOf()}\n`)
