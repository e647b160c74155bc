// The management API for the fuzz generator (./fuzz.ts): every /api/ route Wren registered (so a route added
// tomorrow is fuzzed the day it is added), with its query parameters and body schema from the OpenAPI
// document, and values sampled from those schemas for the generator to mangle.
import type { TestWren } from './wren'

/** The subset of JSON schema the OpenAPI document uses. */
export interface Schema {
  type?: string | string[]
  properties?: Record<string, Schema>
  required?: string[]
  additionalProperties?: boolean | Schema
  items?: Schema
  anyOf?: Schema[]
  oneOf?: Schema[]
  enum?: unknown[]
  const?: unknown
  minimum?: number
  maximum?: number
}

export interface ManagementRoute {
  method: string
  /** With Fastify's `:param`s. */
  url: string
  query: Record<string, Schema>
  body: Schema | null
}

export interface ManagementTargets {
  projectId: number
  routes: ManagementRoute[]
  /** Personal keys with some scopes, or limited to another project. */
  limitedKeys: string[]
  /**
   * The `*` key the fuzz sends (made for it): what the fuzz does with it (a key PATCHed, an access rule set)
   * never touches the key the run's final checks read with.
   */
  fuzzKey: string
}

/** Reads the routes and their schemas, and makes the limited keys, with the instance's `*` key. */
export async function managementTargets(t: TestWren): Promise<ManagementTargets> {
  const manage = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(t.url + path, {
      method,
      headers: { authorization: `Bearer ${t.personalKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    })
    if (res.status >= 300) throw new Error(`fuzz setup: ${method} ${path} answered ${res.status}: ${await res.text()}`)
    return (await res.json()) as Record<string, any>
  }
  // Snapshots the fuzz sends are stored, not dropped: the recordings processor sees them too.
  await manage('PATCH', `/api/projects/${t.projectId}/`, { session_recording_opt_in: true })
  const doc = await manage('GET', '/api/schema/')
  const routes: ManagementRoute[] = []
  for (const { method, url } of t.wren.routes) {
    if (!url.startsWith('/api/') || method === 'HEAD' || method === 'OPTIONS') continue
    // `DELETE /api/personal_api_keys/@current/` would revoke the fuzz's own key and leave the rest of the run
    // unauthenticated; revocation has tests of its own (test/projects/keys-cli.test.ts, test/http/authorization.test.ts).
    if (method === 'DELETE' && url === '/api/personal_api_keys/:id/') continue
    const operation = doc.paths?.[url.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()] ?? {}
    const query: Record<string, Schema> = {}
    for (const p of (operation.parameters ?? []) as Array<{ in: string; name: string; schema: Schema }>)
      if (p.in === 'query') query[p.name] = p.schema
    routes.push({ method, url, query, body: operation.requestBody?.content?.['application/json']?.schema ?? null })
  }
  const other = await manage('POST', '/api/projects/', { name: 'fuzz-other' })
  const limitedKeys = []
  for (const [scopes, teams] of [
    [['action:read', 'person:read'], []],
    [['feature_flag:write', 'session_recording:read'], [t.projectId]],
    [['*'], [other.id]],
  ] as const)
    limitedKeys.push((await manage('POST', '/api/personal_api_keys/', { label: 'fuzz', scopes, scoped_teams: teams })).value as string)
  const fuzzKey = (await manage('POST', '/api/personal_api_keys/', { label: 'fuzz', scopes: ['*'] })).value as string
  return { projectId: t.projectId, routes, limitedKeys, fuzzKey }
}

/** What the sampler draws on (the generator's seeded choices). */
export interface Draw {
  int(n: number): number
  chance(p: number): boolean
  pick<T>(items: readonly T[]): T
  /** A value of any type, from the generator's weird ones. */
  scalar(): unknown
  /** A number past 2^53 as JSON text, placed by the generator. */
  big(): unknown
}

// Free-form objects the schema only describes in words: what PostHog's clients put there.
const propertyFilter = (d: Draw) => ({
  key: d.pick(['email', '$browser', 'plan', 'id', '$current_url']),
  value: d.pick(['x@example.com', ['a', 'b'], 5, d.big(), null, '']),
  operator: d.pick(['exact', 'is_not', 'icontains', 'regex', 'gt', 'is_set', 'is_date_before', 'bogus']),
  type: d.pick(['person', 'event', 'cohort', 'group', 'element', 'hogql', 'nope']),
})
const TEMPLATES: Record<string, (d: Draw) => unknown> = {
  filters: (d) => ({
    groups: [{ properties: [propertyFilter(d)], rollout_percentage: d.pick([0, 50, 100, 101, -1, d.big()]) }],
    ...(d.chance(0.3) ? { multivariate: { variants: [{ key: 'a', rollout_percentage: d.pick([50, 100, d.big()]) }] } } : {}),
    ...(d.chance(0.3) ? { properties: { type: d.pick(['AND', 'OR']), values: [propertyFilter(d)] } } : {}),
    ...(d.chance(0.2) ? { payloads: { a: '{"x":1}' } } : {}),
  }),
  properties: (d) => (d.chance(0.5) ? [propertyFilter(d)] : { plan: 'pro', n: d.big() }),
  steps: (d) => [
    {
      event: d.pick(['$pageview', 'clicked', null]),
      url: 'fuzz',
      url_matching: d.pick(['contains', 'regex', 'x']),
      properties: [propertyFilter(d)],
    },
  ],
  events: (d) => [
    { id: d.pick(['$pageview', 'clicked']), math: d.pick(['total', 'dau', 'sum', 'p99', 'nope']), properties: [propertyFilter(d)] },
  ],
  actions: (d) => [{ id: d.pick([1, 2, d.big()]), math: 'total' }],
  breakdown: (d) => d.pick(['$browser', 'plan', '', null, d.big()]),
  // A dashboard's or an insight's read: JSON of dashboard filters, mostly well formed.
  filters_override: (d) =>
    d.pick([
      '{"date_from":"-7d"}',
      '{"date_from":null,"date_to":null}',
      '{}',
      '{"date_from":"-30d","properties":[]}',
      '{"date_from":7}',
      '{',
    ]),
  // A dashboard copied: mostly one that exists (the project's first ones), sharing its insights.
  use_dashboard: (d) => d.pick([1, 2, 1, 2, d.big()]),
  duplicate_tiles: (d) => d.pick([false, false, false, true]),
}

/** A value that fits `schema` most of the time, and the edges of it (limits, limits ± 1, huge numbers). */
export function sample(schema: Schema | undefined, d: Draw, name = '', depth = 0): unknown {
  if (!schema || depth > 6) return d.scalar()
  if (name in TEMPLATES && d.chance(0.7)) return TEMPLATES[name](d)
  if (schema.anyOf ?? schema.oneOf) return sample(d.pick((schema.anyOf ?? schema.oneOf)!), d, name, depth + 1)
  if (schema.enum) return d.chance(0.9) ? d.pick(schema.enum) : d.scalar()
  if (schema.const !== undefined) return schema.const
  const type = Array.isArray(schema.type) ? d.pick(schema.type) : schema.type
  switch (type) {
    case 'string':
      return d.pick([`fuzz-${d.int(20)}`, 'pro', '2026-01-01', '-7d', 'a'.repeat(d.int(500)), '', String(d.big()).slice(7)])
    case 'integer':
    case 'number':
      return d.pick([0, 1, 5, -1, schema.minimum ?? 1, schema.maximum ?? 100, (schema.maximum ?? 100) + 1, 1.5, d.big(), d.big()])
    case 'boolean':
      return d.chance(0.5)
    case 'null':
      return null
    case 'array':
      return Array.from({ length: d.int(4) }, () => sample(schema.items, d, name, depth + 1))
    case 'object': {
      const out: Record<string, unknown> = {}
      for (const [key, value] of Object.entries(schema.properties ?? {}))
        if (schema.required?.includes(key) || d.chance(0.5)) out[key] = sample(value, d, key, depth + 1)
      if (schema.additionalProperties && d.chance(0.3)) out[d.pick(['extra', 'session_recording_opt_in', 'x'])] = d.scalar()
      return out
    }
    default:
      return d.scalar()
  }
}

/** Fills the route's path parameters: the project most of the time, ids of every kind (past 2^53 too). */
export function fillPath(url: string, projectId: number, d: Draw, bigLiteral: () => string): string {
  return url.replace(/:(\w+)/g, (_, param: string) => {
    if (param === 'project_id' && d.chance(0.85)) return String(projectId)
    if (param === 'organization_id' && d.chance(0.85)) return '@current'
    return d.pick([
      '1',
      '2',
      String(d.int(50)),
      bigLiteral(),
      bigLiteral(),
      '-1',
      '0',
      '018f1a2b-3c4d-7e5f-8a9b-0c1d2e3f4a5b',
      'abc',
      '%00',
      '%ZZ',
      '..%2F..',
      'a'.repeat(300),
      '@current',
    ])
  })
}
