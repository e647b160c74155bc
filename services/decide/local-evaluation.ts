// The flag definitions server SDKs poll for local evaluation (GET /api/feature_flag/local_evaluation and
// /flags/definitions): the active flags, with dependency filters rewritten to flag keys plus their
// dependency chain (reference §3.6, §5), the group type mapping and the dynamic cohorts.
import { createHash } from 'node:crypto'
import type { FeatureFlag, StoredPropertyFilter } from '../flags/types'
import { minimalFlag } from '../flags/serialize'
import type { CohortReader } from './cohorts'
import type { FlagsService } from './service'
import type { PersonSnapshot } from './snapshot'

export interface LocalEvaluationDeps {
  service: Pick<FlagsService, 'flagsOf'>
  snapshot: Pick<PersonSnapshot, 'groupTypeNames'>
  cohorts: Pick<CohortReader, 'list'>
}

/** The definitions as JSON text, and their weak ETag (SDKs poll with If-None-Match). */
export function localEvaluation(teamId: number, deps: LocalEvaluationDeps): { text: string; etag: string } {
  const text = JSON.stringify(localEvaluationBody(teamId, deps))
  return { text, etag: `W/"${createHash('sha1').update(text).digest('hex')}"` }
}

function localEvaluationBody(teamId: number, deps: LocalEvaluationDeps): Record<string, unknown> {
  const all = deps.service.flagsOf(teamId)
  const byId = new Map(all.map((f) => [String(f.id), f]))
  const flags = all.filter((f) => f.active).map((f) => minimalFlag({ ...f, filters: rewriteDependencies(f, byId) }))
  const mapping = Object.fromEntries([...deps.snapshot.groupTypeNames(teamId)].map(([i, name]) => [String(i), name]))
  const cohorts = Object.fromEntries(
    deps.cohorts
      .list(teamId)
      .filter((c) => !c.isStatic && c.properties)
      .map((c) => [String(c.id), c.properties]),
  )
  return { flags, group_type_mapping: mapping, cohorts }
}

function rewriteDependencies(flag: FeatureFlag, byId: Map<string, FeatureFlag>): FeatureFlag['filters'] {
  const groups = flag.filters.groups
  if (!groups?.some((g) => g.properties?.some((p) => p.type === 'flag'))) return flag.filters
  const chainOf = (id: string, seen: string[]): string[] | null => {
    const dep = byId.get(id)
    if (!dep || seen.includes(id)) return null
    const order: string[] = []
    for (const g of dep.filters.groups ?? []) {
      for (const p of g.properties ?? []) {
        if (p.type !== 'flag') continue
        const sub = chainOf(String(p.key), [...seen, id])
        if (sub === null) return null
        for (const k of sub) if (!order.includes(k)) order.push(k)
      }
    }
    order.push(dep.key)
    return order
  }
  return {
    ...flag.filters,
    groups: groups.map((g) => ({
      ...g,
      properties: (g.properties ?? []).map((p): StoredPropertyFilter => {
        if (p.type !== 'flag') return p
        const dep = byId.get(String(p.key))
        const chain = chainOf(String(p.key), [String(flag.id)])
        return { ...p, key: dep?.key ?? String(p.key), dependency_chain: chain ?? [] }
      }),
    })),
  }
}
