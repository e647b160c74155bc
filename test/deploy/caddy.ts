// Debian's caddy for the deployment tests (apt-get install caddy): why a test cannot run it, or null.
import { spawnSync } from 'node:child_process'

export function caddyMissing(): string | null {
  const found = spawnSync('caddy', ['version'], { encoding: 'utf8' })
  return found.status === 0 ? null : 'caddy is not installed (apt-get install caddy)'
}
