// The app's answer types come from the server's response schemas (answers.ts), and only their types: a
// value imported from services/ would put server code (and its Node imports) into the browser's bundle.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const SOURCE = path.dirname(new URL(import.meta.url).pathname)

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [path.join(dir, e.name)] : [],
  )
}

describe('what the app takes from the server', () => {
  it('is types only: every import from services/ is `import type`', () => {
    const imports = sources(SOURCE).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/^import\s+(type\s+)?[^'"]*?\bfrom\s+'([^']+)'/gm)]
        .filter((m) => /(^|\/)services\//.test(m[2]))
        .map((m) => ({ file: path.relative(SOURCE, file), from: m[2], typeOnly: m[1] !== undefined })),
    )
    expect(imports.length).toBeGreaterThan(0)
    expect(imports.filter((i) => !i.typeOnly)).toEqual([])
  })
})
