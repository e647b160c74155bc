// Every management route, taken from the router as Wren registers it (so a route added tomorrow is
// covered the day it is added), against every kind of credential that must not get through: no key, a
// malformed header, an unknown key, a project API key as a bearer token, a key without the route's scope,
// a key limited to another project, and another project's object ids. Each must answer 401, 403 or 404
// with an error body and none of the project's data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, waitFor, type TestWren } from '../support/wren'
import { createKey, createProject } from '../support/management'

type Objects = {
  persons: string
  actions: number
  annotations: number
  experiments: number
  surveys: string
  cohorts: number
  feature_flags: number
  session_recordings: string
  insights: number
  dashboards: number
  /** An asynchronous query's id. */
  query: string
}
interface Outcome {
  route: string
  status: number
  text: string
}

describe('authorization of every management route', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let routes: Array<{ method: string; url: string }>
  let other: { id: number; api_token: string }
  const objects = {} as Record<'a' | 'b', Objects>
  let keys: { noScope: { id: string; value: string }; otherProject: { id: string; value: string }; fullId: string }
  /** Strings only project A's data contains: none may appear in a refused answer. */
  let markersA: string[]
  const markersB = [
    'authz-b-person',
    'authz-b@example.com',
    'authz-b-action',
    'authz-b-cohort',
    'authz-b-flag',
    'authz-b-insight',
    'authz-b-dashboard',
    'authz-b-experiment',
    'authz-b-survey',
  ]

  const makeObjects = async (projectId: number, projectKey: string, tag: 'a' | 'b'): Promise<Objects> => {
    await captureBatch({ url: t.url, projectKey }, [
      { event: 'signed_up', distinct_id: `authz-${tag}-person`, properties: { $set: { email: `authz-${tag}@example.com` } } },
    ])
    await drained(t.wren)
    const person = (await call('GET', `/api/projects/${projectId}/persons/?distinct_id=authz-${tag}-person`)).body.results[0]
    const action = await call('POST', `/api/projects/${projectId}/actions/`, {
      name: `authz-${tag}-action`,
      steps: [{ event: 'signed_up' }],
    })
    const cohort = await call('POST', `/api/projects/${projectId}/cohorts/`, {
      name: `authz-${tag}-cohort`,
      filters: { properties: { type: 'AND', values: [{ key: 'email', value: `authz-${tag}@example.com`, type: 'person' }] } },
    })
    const flag = await call('POST', `/api/projects/${projectId}/feature_flags/`, {
      key: `authz-${tag}-flag`,
      filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
    })
    const dashboard = await call('POST', `/api/projects/${projectId}/dashboards/`, { name: `authz-${tag}-dashboard` })
    const insight = await call('POST', `/api/projects/${projectId}/insights/`, {
      name: `authz-${tag}-insight`,
      filters: { events: [{ id: 'signed_up' }] },
      dashboards: [dashboard.body.id],
    })
    const annotation = await call('POST', `/api/projects/${projectId}/annotations/`, {
      content: `authz-${tag}-annotation`,
      date_marker: '2026-11-01',
    })
    const experiment = await call('POST', `/api/projects/${projectId}/experiments/`, {
      name: `authz-${tag}-experiment`,
      feature_flag_key: `authz-${tag}-experiment-flag`,
    })
    const survey = await call('POST', `/api/projects/${projectId}/surveys/`, {
      name: `authz-${tag}-survey`,
      type: 'popover',
      questions: [{ type: 'open', question: 'Why?' }],
    })
    // An asynchronous query: its id is what GET and DELETE …/query/:id/ name.
    const query = await call('POST', `/api/projects/${projectId}/query/`, {
      query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'signed_up' }] },
      refresh: 'force_async',
      client_query_id: `authz-${tag}-query`,
    })
    if (query.status !== 202) throw new Error(`setup failed: ${query.status} ${query.text}`)
    for (const res of [action, cohort, flag, dashboard, insight, annotation, experiment, survey])
      if (res.status !== 201) throw new Error(`setup failed: ${res.status} ${res.text}`)
    // A session recording: the project opts in, posthog-js's recorder sends one snapshot.
    const recording = `authz-${tag}-session`
    await call('PATCH', `/api/projects/${projectId}/`, { session_recording_opt_in: true })
    const snapshot = {
      event: '$snapshot',
      distinct_id: `authz-${tag}-person`,
      properties: { token: projectKey, $session_id: recording, $snapshot_data: [{ type: 4, timestamp: Date.now(), data: {} }] },
    }
    await fetch(`${t.url}/s/`, { method: 'POST', body: JSON.stringify([snapshot]) })
    await waitFor(async () => (await call('GET', `/api/projects/${projectId}/session_recordings/${recording}/snapshots`)).status === 200)
    return {
      persons: person.uuid,
      actions: action.body.id,
      annotations: annotation.body.id,
      experiments: experiment.body.id,
      surveys: survey.body.id,
      cohorts: cohort.body.id,
      feature_flags: flag.body.id,
      session_recordings: recording,
      insights: insight.body.id,
      dashboards: dashboard.body.id,
      query: query.body.query_status.id,
    }
  }

  beforeAll(async () => {
    // Hundreds of refused requests from one address: the failed-authentication limit has its own test.
    t = await startWren({ WREN_AUTH_FAILURE_LIMIT: '0' })
    call = api(t)
    routes = t.wren.managementRoutes
    other = await createProject(t, 'Other project')
    objects.a = await makeObjects(t.projectId, t.projectKey, 'a')
    objects.b = await makeObjects(other.id, other.api_token, 'b')
    keys = {
      // A scope no route takes.
      noScope: await createKey(t, ['webhook:read']),
      otherProject: await createKey(t, ['*'], [other.id]),
      fullId: (await call('GET', '/api/personal_api_keys/')).body.results.find((k: any) => k.label === 'bootstrap').id,
    }
    markersA = [
      t.projectKey,
      'authz-a-person',
      'authz-a@example.com',
      'authz-a-action',
      'authz-a-cohort',
      'authz-a-flag',
      'authz-a-insight',
      'authz-a-dashboard',
      'authz-a-annotation',
      'authz-a-experiment',
      'authz-a-survey',
      'Default project',
    ]
  })
  afterAll(async () => {
    await t?.close()
  })

  /** The path of `url` in project A, with `:id` an object of project `owner` (or the full key's id). */
  const pathOf = (url: string, owner: 'a' | 'b'): string => {
    const known = [':project_id', ':id', ':kind', ':organization_id', ':user_uuid', ':invite_id']
    const unknown = url.match(/:\w+/g)?.filter((p) => !known.includes(p))
    if (unknown?.length) throw new Error(`${url}: this test does not know how to fill ${unknown.join(', ')}; teach it (pathOf)`)
    let path = url
      .replace(':project_id', String(t.projectId))
      .replace(':kind', 'TrendsQuery')
      .replace(':organization_id', '@current')
      // Someone else's: a refused request must not reach them (and a missing one is refused before it is looked up).
      .replace(':user_uuid', '00000000-0000-4000-8000-000000000000')
      .replace(':invite_id', '00000000-0000-4000-8000-000000000000')
    if (path.includes(':id')) {
      const kind = /\/([a-z_]+)\/:id\//.exec(url)?.[1]
      const id = kind === 'personal_api_keys' ? keys.fullId : (objects[owner] as Record<string, unknown>)[kind ?? '']
      if (id === undefined) throw new Error(`${url}: this test does not know which object :id names; teach it (pathOf)`)
      path = path.replace(':id', String(id))
    }
    if (url === '/api/feature_flag/local_evaluation' || url === '/flags/definitions') path += `?token=${t.projectKey}`
    return path
  }
  const bodyOf = (method: string, url: string): unknown => {
    if (!['POST', 'PATCH', 'PUT'].includes(method)) return undefined
    if (url === '/api/personal_api_keys/') return { label: 'escalated', scopes: ['*'], scoped_teams: [] }
    return { name: 'authz-overwritten', key: 'authz-overwritten', properties: { overwritten: true }, access_level: 'none' }
  }
  const send = async (method: string, url: string, authorization: string | null, owner: 'a' | 'b' = 'a'): Promise<Outcome> => {
    const body = bodyOf(method, url)
    const res = await fetch(t.url + pathOf(url, owner), {
      method,
      headers: {
        ...(authorization !== null ? { authorization } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    })
    return { route: `${method} ${url}`, status: res.status, text: await res.text() }
  }
  /** The answer is a refusal with one of `statuses`, an error body and none of `markers`. */
  const refusal = (o: Outcome, statuses: number[], markers: string[]): string | null => {
    if (!statuses.includes(o.status)) return `${o.route}: ${o.status} (expected ${statuses.join('/')}) ${o.text.slice(0, 200)}`
    let body: unknown
    try {
      body = JSON.parse(o.text)
    } catch {
      return `${o.route}: not a JSON error body: ${o.text.slice(0, 200)}`
    }
    const fields = Object.keys(body as object)
      .sort()
      .join(',')
    if (fields !== 'attr,code,detail,type') return `${o.route}: body is not an error: ${o.text.slice(0, 200)}`
    const leaked = markers.filter((m) => o.text.includes(m))
    return leaked.length ? `${o.route}: leaks ${leaked.join(', ')}` : null
  }
  const check = async (
    authorization: string | null,
    expect: (route: { method: string; url: string }, o: Outcome) => string | null,
    owner: 'a' | 'b' = 'a',
  ) => {
    const failures: string[] = []
    for (const route of routes) {
      const failure = expect(route, await send(route.method, route.url, authorization, owner))
      if (failure) failures.push(failure)
    }
    return failures
  }

  it('enumerates the routes from the router', () => {
    const names = routes.map((r) => `${r.method} ${r.url}`)
    expect(names.length).toBeGreaterThan(60)
    expect(names).toEqual(
      expect.arrayContaining([
        'GET /api/projects/',
        'POST /api/personal_api_keys/',
        'DELETE /api/personal_api_keys/:id/',
        'GET /api/environments/:project_id/persons/:id/',
        'GET /api/feature_flag/local_evaluation',
      ]),
    )
    expect(objects.b.actions).not.toBe(objects.a.actions)
    expect(objects.b.cohorts).not.toBe(objects.a.cohorts)
    expect(objects.b.feature_flags).not.toBe(objects.a.feature_flags)
  })

  it.each([
    ['no key', null],
    ['a malformed header', 'Basic YWRtaW46YWRtaW4='],
    ['a bearer header without a token', 'Bearer'],
    ['an unknown key', 'Bearer phx_00000000000000000000000000000000unknown'],
    ['the project API key as a bearer token', 'PROJECT_KEY'],
  ])('refuses %s with 401 on every route', async (_what, authorization) => {
    const header = authorization === 'PROJECT_KEY' ? `Bearer ${t.projectKey}` : authorization
    expect(await check(header, (_r, o) => refusal(o, [401], markersA))).toEqual([])
  })

  it('refuses a key without the route’s scope with 403 on every route, the key routes included (they need `*`)', async () => {
    const failures = await check(`Bearer ${keys.noScope.value}`, (_r, o) => refusal(o, [403], [...markersA, keys.fullId]))
    expect(failures).toEqual([])
  })

  /**
   * Lists a limited key may read, showing only what it reaches: projects, its keys, its own user (whose team
   * is its project), and the organization seen through its projects. (Its user's own name and password are
   * its user's, not a project's: it may change them.)
   */
  const LISTS_WHAT_IT_REACHES = [
    '/api/projects/',
    '/api/personal_api_keys/',
    '/api/users/@me/',
    '/api/organizations/',
    '/api/organizations/:organization_id/',
    '/api/organizations/:organization_id/projects/',
  ]

  it('refuses a key limited to another project with 403, and lists it only that project’s things', async () => {
    const failures = await check(`Bearer ${keys.otherProject.value}`, (r, o) => {
      if ((r.method === 'GET' && LISTS_WHAT_IT_REACHES.includes(r.url)) || (r.method === 'PATCH' && r.url === '/api/users/@me/')) {
        if (o.status !== 200) return `${r.method} ${r.url}: ${o.status}`
        const leaked = [...markersA, keys.fullId].filter((m) => o.text.includes(m))
        return leaked.length ? `${r.method} ${r.url}: leaks ${leaked.join(', ')}` : null
      }
      if (r.url.startsWith('/api/personal_api_keys/')) return refusal(o, r.method === 'POST' ? [403] : [404], [keys.fullId])
      return refusal(o, [403], markersA)
    })
    expect(failures).toEqual([])
  })

  it('refuses a key limited to another project with 403 before it reads the body: an empty or wrong one too', async () => {
    const failures: string[] = []
    // A limited key may make keys limited to its own projects: the key routes read the body to know.
    const writes = routes.filter(
      (r) => ['POST', 'PATCH', 'PUT'].includes(r.method) && !r.url.startsWith('/api/personal_api_keys/') && r.url !== '/api/users/@me/',
    )
    for (const route of writes)
      for (const body of ['{}', '{"name": 5}', '[]']) {
        const res = await fetch(t.url + pathOf(route.url, 'a'), {
          method: route.method,
          headers: { authorization: `Bearer ${keys.otherProject.value}`, 'content-type': 'application/json' },
          body,
        })
        const failure = refusal(
          { route: `${route.method} ${route.url} ${body}`, status: res.status, text: await res.text() },
          [403],
          markersA,
        )
        if (failure) failures.push(failure)
      }
    expect(failures).toEqual([])
  })

  it('answers 404 for another project’s object ids, even with a key holding every scope', async () => {
    const failures: string[] = []
    for (const route of routes.filter((r) => r.url.includes(':id') && !r.url.startsWith('/api/personal_api_keys/'))) {
      // 405: a method the route refuses outright (a flag's DELETE), whatever the object.
      const failure = refusal(await send(route.method, route.url, `Bearer ${t.personalKey}`, 'b'), [404, 405], markersB)
      if (failure) failures.push(failure)
    }
    expect(failures).toEqual([])
    // Nothing was changed by any of the refused requests.
    const persons = (await call('GET', `/api/projects/${other.id}/persons/?distinct_id=authz-b-person`)).body.results
    expect(persons).toHaveLength(1)
    expect(persons[0].properties.overwritten).toBeUndefined()
    expect((await call('GET', `/api/projects/${other.id}/actions/${objects.b.actions}/`)).body.name).toBe('authz-b-action')
    expect((await call('GET', `/api/projects/${other.id}/cohorts/${objects.b.cohorts}/`)).body.name).toBe('authz-b-cohort')
    expect((await call('GET', `/api/projects/${other.id}/feature_flags/${objects.b.feature_flags}/`)).body.key).toBe('authz-b-flag')
    expect((await call('GET', `/api/projects/${other.id}/insights/${objects.b.insights}/`)).body.name).toBe('authz-b-insight')
    expect((await call('GET', `/api/projects/${other.id}/dashboards/${objects.b.dashboards}/`)).body.name).toBe('authz-b-dashboard')
    expect((await call('GET', `/api/projects/${t.projectId}/`)).body.name).toBe('Default project')
    expect((await call('GET', '/api/personal_api_keys/')).body.results.map((k: any) => k.label)).not.toContain('escalated')
  })
})
