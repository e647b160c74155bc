// Installs npm dependencies on first use, so `npm start` and `npm test` work from a fresh clone.
import { existsSync } from 'node:fs'
import { execSync } from 'node:child_process'

if (!existsSync(new URL('../node_modules/.package-lock.json', import.meta.url))) {
  console.error('wren: installing dependencies (first run)…')
  execSync('npm install --no-audit --no-fund', { stdio: 'inherit', cwd: new URL('..', import.meta.url) })
}
