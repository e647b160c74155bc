#!/usr/bin/env node
// `npx wren …` runs the TypeScript entry point through tsx. On a fresh clone (`npx wren init` before any
// `npm install`, as the README's Deploy section has it) the dependencies are installed first, as `npm start`
// does: scripts/ensure-deps.mjs does nothing when they are in place.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

await import('../scripts/ensure-deps.mjs')
const entry = fileURLToPath(new URL('../services/main.ts', import.meta.url))
const result = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), entry, ...process.argv.slice(2)], { stdio: 'inherit' })
process.exit(result.status ?? 1)
