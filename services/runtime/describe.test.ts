// docs/architecture.md embeds the runtime's tables as `wren roles` prints them; this keeps the two the same.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { describeRuntime } from './describe'

const BEGIN = '<!-- wren roles: begin -->'
const END = '<!-- wren roles: end -->'
const architecture = path.resolve(import.meta.dirname, '../../docs/architecture.md')

describe('the runtime tables in docs/architecture.md', () => {
  it('are what describeRuntime() prints', () => {
    const text = readFileSync(architecture, 'utf8')
    const begin = text.indexOf(BEGIN)
    const end = text.indexOf(END)
    expect(begin >= 0 && end > begin, `docs/architecture.md lost its markers '${BEGIN}' … '${END}'`).toBe(true)
    expect(
      text.slice(begin + BEGIN.length, end).trim(),
      "docs/architecture.md's runtime tables differ from the role and stream tables: run `npm run docs:roles` to rewrite them",
    ).toBe(describeRuntime().trim())
  })
})
