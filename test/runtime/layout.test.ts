// The layout's rules, checked on the source. services/ is a house of floors: platform/ is the ground floor
// (it imports packages, Node and itself; its tests may also use test/support/), analytics/ (the vocabulary of
// questions: filters, HogQL, SQL building blocks, time) stands on it, feature folders on them, the runtime on
// those, and app.ts and main.ts on top. Every import goes down or stays in its folder: no arrow up, no circle
// between folders or between files. A feature imports another feature only for what is that feature's own, as
// listed below; a capability several features use moves down to analytics/ or platform/.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const services = path.resolve(import.meta.dirname, '../../services')
const platform = path.join(services, 'platform')
const analytics = path.join(services, 'analytics')
const fixtures = path.resolve(import.meta.dirname, '../support')
/** The Query API's kinds: one folder each, none importing a sibling (what two kinds share lives in query/common/ or lower). */
const queryKinds = path.join(services, 'query', 'kinds')

/** The floors, lowest first. A folder imports only its own floor's folder (itself) or lower floors. */
const FLOORS: string[][] = [
  ['platform'],
  ['analytics'],
  [
    'projects',
    'actions',
    'annotations',
    'cohorts',
    'flags',
    'capture',
    'events',
    'definitions',
    'dead-letters',
    'ingestion',
    'static',
    'surveys',
    'web',
  ],
  ['query', 'persons', 'decide', 'accounts'],
  ['recordings', 'insights', 'experiments'],
  ['runtime'],
  ['app.ts'],
  ['main.ts'],
]

/** Feature → feature imports, each for something that is the imported feature's own. */
const FEATURE_IMPORTS: Record<string, string> = {
  'query → actions': 'a series can be an action: its definition and its SQL',
  'query → cohorts': 'cohort filters and breakdowns: cohort definitions and membership SQL',
  'query → persons': 'EventsQuery’s person column and ActorsQuery’s rows: the persons and their distinct ids',
  'persons → cohorts': 'the persons list filtered by cohort: membership SQL',
  'decide → flags': 'the flag definitions decide evaluates',
  'recordings → actions': 'the recordings list filtered by action',
  'recordings → persons': 'the recordings list filtered by person, and the person shown on a recording',
  'recordings → cohorts': 'the recordings list filtered by cohort: cohort definitions and membership SQL',
  'accounts → projects': 'a user’s team and organization show the projects it reaches: their shape and store',
  'insights → query': 'an insight’s result is its query’s answer: the Query API’s runner (with its cache)',
  'experiments → flags': 'an experiment runs on a flag: creating it, launching it, showing it',
  'experiments → query': 'an experiment’s metrics are the experiment kinds’ ExperimentMetric: one validation',
}

/** What the top floors may weigh. */
const APP_TS_MAX_LINES = 120
const BUILD_WREN_MAX_LINES = 80

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? sourceFiles(full) : /\.tsx?$/.test(entry.name) ? [full] : []
  })
}

/** Every module specifier of a file: static imports and re-exports, and dynamic import(). */
function specifiersOf(source: string): string[] {
  return [...new Set([...source.matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]))]
}

function resolveFile(target: string): string {
  for (const candidate of [target, `${target}.ts`, `${target}.tsx`, path.join(target, 'index.ts')])
    if (sourceSet.has(candidate)) return candidate
  return target
}

const allFiles = sourceFiles(services)
const sourceSet = new Set(allFiles)

/** Each relative import of the files under `dir`, resolved to a file. */
function importsUnder(dir: string): Array<{ file: string; spec: string; target: string }> {
  return sourceFiles(dir).flatMap((file) =>
    specifiersOf(readFileSync(file, 'utf8'))
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => ({ file, spec, target: resolveFile(path.resolve(path.dirname(file), spec)) })),
  )
}

const outside = (dir: string, target: string) => path.relative(dir, target).startsWith('..')
/** Tests and their support (testing/ folders) may reach across folders to build what they test. */
const isTest = (file: string) => file.endsWith('.test.ts') || file.split(path.sep).includes('testing')
const folderOf = (file: string) => path.relative(services, file).split(path.sep)[0]

/** Folder → folder edges of production code (tests may reach across to build what they test). */
function folderEdges(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>()
  for (const { file, target } of importsUnder(services)) {
    if (outside(services, target) || isTest(file)) continue
    const [from, to] = [folderOf(file), folderOf(target)]
    if (from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to))
  }
  return edges
}

/** The circles among production files (strongly connected components of more than one file). */
function fileCircles(): string[][] {
  const graph = new Map<string, string[]>()
  for (const { file, target } of importsUnder(services))
    if (!isTest(file) && sourceSet.has(target)) graph.set(file, [...(graph.get(file) ?? []), target])
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const circles: string[][] = []
  const visit = (v: string) => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        component.push(path.relative(services, w))
      } while (w !== v)
      if (component.length > 1) circles.push(component.sort())
    }
  }
  for (const file of allFiles) if (!index.has(file)) visit(file)
  return circles
}

describe('layout', () => {
  it('finds every kind of import it checks', () => {
    const source =
      "import a from '../x'\nimport type { B } from \"../y\"\nexport { c } from '../z'\nconst d = await import('../w')\nimport 'side-effect'"
    expect(specifiersOf(source)).toEqual(['../x', '../y', '../z', '../w', 'side-effect'])
  })

  it('services/platform imports nothing from outside services/platform', () => {
    const upward = importsUnder(platform)
      .filter(({ file, target }) => outside(platform, target) && !(file.endsWith('.test.ts') && !outside(fixtures, target)))
      .map(({ file, spec }) => `${path.relative(services, file)} imports ${spec}`)
    expect(upward).toEqual([])
  })

  it('services/analytics imports only itself and services/platform', () => {
    const upward = importsUnder(analytics)
      .filter(({ target }) => outside(analytics, target) && outside(platform, target))
      .filter(({ file, target }) => !(file.endsWith('.test.ts') && !outside(fixtures, target)))
      .map(({ file, spec }) => `${path.relative(services, file)} imports ${spec}`)
    expect(upward).toEqual([])
  })

  it('every folder of services/ stands on a floor, and there are at most 8 floors', () => {
    const placed = FLOORS.flat()
    const present = readdirSync(services)
    expect(present.filter((name) => !placed.includes(name)).map((name) => `${name} has no floor`)).toEqual([])
    expect(placed.filter((name) => !present.includes(name)).map((name) => `${name} is gone: take it off the floors`)).toEqual([])
    expect(FLOORS.length).toBeLessThanOrEqual(8)
  })

  it('every import goes down a floor or stays in its folder: no arrow up or sideways but the listed feature imports', () => {
    const floorOf = (folder: string) => FLOORS.findIndex((floor) => floor.includes(folder))
    const wrong: string[] = []
    const used = new Set<string>()
    for (const [from, tos] of folderEdges())
      for (const to of tos) {
        const edge = `${from} → ${to}`
        if (floorOf(to) < floorOf(from) && !(floorOf(from) <= 4 && floorOf(to) >= 2)) continue
        if (FEATURE_IMPORTS[edge]) used.add(edge)
        else wrong.push(`${edge} (floor ${floorOf(from)} → ${floorOf(to)})`)
      }
    expect(wrong).toEqual([])
    expect(
      Object.keys(FEATURE_IMPORTS)
        .filter((edge) => !used.has(edge))
        .map((edge) => `${edge} is listed but not imported`),
    ).toEqual([])
  })

  it('a query kind never imports a sibling kind, and of services/query only the contract and common/', () => {
    const query = path.join(services, 'query')
    const kindOf = (file: string) => (outside(queryKinds, file) ? null : path.relative(queryKinds, file).split(path.sep)[0])
    const kinds = readdirSync(queryKinds, { withFileTypes: true }).filter((e) => e.isDirectory())
    expect(kinds.length).toBeGreaterThan(0)
    const allowed = (target: string) =>
      outside(query, target) || target === path.join(query, 'kind.ts') || !outside(path.join(query, 'common'), target)
    const across = importsUnder(queryKinds)
      .filter(({ file, target }) => (kindOf(target) !== null ? kindOf(target) !== kindOf(file) : !allowed(target)))
      .map(({ file, spec }) => `${path.relative(services, file)} imports ${spec}`)
    expect(across).toEqual([])
  })

  it('production code imports no test support (testing/ folders, test files)', () => {
    const leaks = importsUnder(services)
      .filter(({ file, target }) => !isTest(file) && isTest(target))
      .map(({ file, spec }) => `${path.relative(services, file)} imports ${spec}`)
    expect(leaks).toEqual([])
  })

  it('no circle between files', () => {
    expect(fileCircles()).toEqual([])
  })

  it('the composition root stays small: app.ts and buildWren within their line budgets', () => {
    const source = readFileSync(path.join(services, 'app.ts'), 'utf8')
    expect(source.split('\n').length).toBeLessThanOrEqual(APP_TS_MAX_LINES)
    const buildWren = source.slice(source.indexOf('export async function buildWren'))
    expect(buildWren.slice(0, buildWren.indexOf('\n}\n')).split('\n').length).toBeLessThanOrEqual(BUILD_WREN_MAX_LINES)
  })
})
