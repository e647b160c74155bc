#!/usr/bin/env node
// `npx wren …` runs the TypeScript entry point through tsx.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const entry = fileURLToPath(new URL('../services/main.ts', import.meta.url))
const result = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), entry, ...process.argv.slice(2)], { stdio: 'inherit' })
process.exit(result.status ?? 1)
