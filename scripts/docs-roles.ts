// Writes the runtime's tables into docs/architecture.md, between its `wren roles` markers, from
// describeRuntime() (what `wren roles` prints): npm run docs:roles after changing a role or a stream.
// services/runtime/describe.test.ts fails while the two disagree.
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describeRuntime } from '../services/runtime/describe'

const BEGIN = '<!-- wren roles: begin -->'
const END = '<!-- wren roles: end -->'

const file = path.resolve(import.meta.dirname, '..', 'docs', 'architecture.md')
const text = readFileSync(file, 'utf8')
const begin = text.indexOf(BEGIN)
const end = text.indexOf(END)
if (begin < 0 || end < begin) throw new Error(`${file} has no '${BEGIN}' … '${END}' to write between`)
writeFileSync(file, `${text.slice(0, begin + BEGIN.length)}\n\n${describeRuntime().trim()}\n\n${text.slice(end)}`)
console.log(`wrote the runtime's tables into ${path.relative(process.cwd(), file)}`)
