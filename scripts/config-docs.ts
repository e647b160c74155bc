// Writes docs/configuration.md from the table of variables (services/platform/config/table.ts):
// npm run docs:config after changing a row. config.test.ts fails while the two disagree.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { REFERENCE_PATH, renderReference } from '../services/platform/config/render'

const file = path.resolve(import.meta.dirname, '..', REFERENCE_PATH)
writeFileSync(file, renderReference())
console.log(`wrote ${path.relative(process.cwd(), file)}`)
