// services/shared/ is the bottom layer: it imports packages, Node and itself, never a service above it
// (a service's types included). A capability several services use moves here instead. Its tests may
// also use the repository's test fixtures (test/support/), nothing else.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const shared = import.meta.dirname
const fixtures = path.resolve(shared, '../../test/support')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : []
  })
}

/** Every module specifier of a file: static imports and re-exports, and dynamic import(). */
export function specifiersOf(source: string): string[] {
  const found = [...source.matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1])
  return [...new Set(found)]
}

describe('services/shared', () => {
  it('imports nothing from outside services/shared', () => {
    const outside = (from: string, target: string) => path.relative(from, target).startsWith('..')
    const upward = sourceFiles(shared)
      .filter((file) => file !== import.meta.filename)
      .flatMap((file) =>
        specifiersOf(readFileSync(file, 'utf8'))
          .filter((spec) => spec.startsWith('.'))
          .filter((spec) => {
            const target = path.resolve(path.dirname(file), spec)
            return outside(shared, target) && !(file.endsWith('.test.ts') && !outside(fixtures, target))
          })
          .map((spec) => `${path.relative(shared, file)} imports ${spec}`),
      )
    expect(upward).toEqual([])
  })

  it('finds every kind of import it checks', () => {
    const source = "import a from '../x'\nimport type { B } from \"../y\"\nexport { c } from '../z'\nconst d = await import('../w')\nimport 'side-effect'"
    expect(specifiersOf(source)).toEqual(['../x', '../y', '../z', '../w', 'side-effect'])
  })
})
