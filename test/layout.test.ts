// The layout's rules, checked on the source: services/shared/ is the bottom layer (it imports
// packages, Node and itself, never a service above it; its tests may also use test/support/), and no
// service folder imports one that imports it back. A capability several services use moves to shared/.
// Also: features read projects through shared/tenancy.ts (only the composition root imports projects/),
// test support stays out of production code, and no two source files import each other, even in a loop.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const services = path.resolve(import.meta.dirname, '../services')
const shared = path.join(services, 'shared')
const fixtures = path.resolve(import.meta.dirname, 'support')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : []
  })
}

/** Every module specifier of a file: static imports and re-exports, and dynamic import(). */
function specifiersOf(source: string): string[] {
  return [...new Set([...source.matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]))]
}

/** Each relative import of the files under `dir`, resolved. */
function importsUnder(dir: string): Array<{ file: string; spec: string; target: string }> {
  return sourceFiles(dir).flatMap((file) =>
    specifiersOf(readFileSync(file, 'utf8'))
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => ({ file, spec, target: path.resolve(path.dirname(file), spec) })),
  )
}

const outside = (dir: string, target: string) => path.relative(dir, target).startsWith('..')

describe('layout', () => {
  it('finds every kind of import it checks', () => {
    const source =
      "import a from '../x'\nimport type { B } from \"../y\"\nexport { c } from '../z'\nconst d = await import('../w')\nimport 'side-effect'"
    expect(specifiersOf(source)).toEqual(['../x', '../y', '../z', '../w', 'side-effect'])
  })

  it('services/shared imports nothing from outside services/shared', () => {
    const upward = importsUnder(shared)
      .filter(({ file, target }) => outside(shared, target) && !(file.endsWith('.test.ts') && !outside(fixtures, target)))
      .map(({ file, spec }) => `${path.relative(services, file)} imports ${spec}`)
    expect(upward).toEqual([])
  })

  it('no service folder imports one that imports it back', () => {
    const folderOf = (file: string) => path.relative(services, file).split(path.sep)[0]
    const edges = new Map<string, Set<string>>()
    for (const { file, target } of importsUnder(services)) {
      if (outside(services, target) || !path.relative(services, file).includes(path.sep)) continue
      const [from, to] = [folderOf(file), folderOf(target)]
      if (from !== to && !to.endsWith('.ts')) edges.set(from, (edges.get(from) ?? new Set()).add(to))
    }
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
      [...(edges.get(from) ?? [])].some((next) => next === to || (!seen.has(next) && (seen.add(next), reaches(next, to, seen))))
    const cycles = [...edges].flatMap(([from, tos]) =>
      [...tos].filter((to) => reaches(to, from)).map((to) => `${from} → ${to} → … → ${from}`),
    )
    expect(cycles).toEqual([])
  })

  it('only the composition root imports projects/: features read projects through shared/tenancy.ts', () => {
    const projects = path.join(services, 'projects')
    const root = ['app.ts', 'main.ts'].map((name) => path.join(services, name))
    const through = importsUnder(services)
      .filter(({ file, target }) => outside(projects, file) && !root.includes(file) && !outside(projects, target))
      .map(({ file, spec }) => `${path.relative(services, file)} imports ${spec}`)
    expect(through).toEqual([])
  })

  it('production code imports no test support (testing/ folders, test files)', () => {
    const isTest = (file: string) => file.endsWith('.test.ts') || file.split(path.sep).includes('testing')
    const leaks = importsUnder(services)
      .filter(({ file, target }) => !isTest(file) && (isTest(target) || isTest(target + '.ts')))
      .map(({ file, spec }) => `${path.relative(services, file)} imports ${spec}`)
    expect(leaks).toEqual([])
  })

  it('no source file imports one that imports it back', () => {
    const edges = new Map<string, Set<string>>()
    for (const { file, target } of importsUnder(services)) edges.set(file, (edges.get(file) ?? new Set()).add(target + '.ts'))
    const cycles: string[] = []
    const state = new Map<string, 'open' | 'done'>()
    const visit = (file: string, trail: string[]) => {
      state.set(file, 'open')
      for (const next of edges.get(file) ?? []) {
        if (state.get(next) === 'open')
          cycles.push([...trail.slice(trail.indexOf(next)), next].map((f) => path.relative(services, f)).join(' → '))
        else if (!state.has(next)) visit(next, [...trail, next])
      }
      state.set(file, 'done')
    }
    for (const file of edges.keys()) if (!state.has(file)) visit(file, [file])
    expect(cycles).toEqual([])
  })
})
