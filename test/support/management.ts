// Helpers for management-API tests: keys with limited scopes or projects, second projects, and the
// auth checks every management route must pass.
import { expect } from 'vitest'
import { api, type TestWren } from './wren'

export async function createProject(t: TestWren, name: string): Promise<{ id: number; api_token: string }> {
  const res = await api(t)('POST', '/api/projects/', { name })
  if (res.status !== 201) throw new Error(`creating project failed: ${res.status} ${res.text}`)
  return res.body
}

export async function createKey(t: TestWren, scopes: string[], scopedTeams: number[] = []): Promise<{ id: string; value: string }> {
  const res = await api(t)('POST', '/api/personal_api_keys/', { label: scopes.join(','), scopes, scoped_teams: scopedTeams })
  if (res.status !== 201) throw new Error(`creating key failed: ${res.status} ${res.text}`)
  return res.body
}

export interface AuthCase {
  method: string
  /** Route with `:project_id` in it. */
  route: string
  scope: string
  body?: unknown
}

/**
 * No header → 401, unknown key → 401, a key without the scope → 403 naming it, a key for another project
 * → 403, an unknown project → 404. `wrongScopeKey` lacks `scope`; `otherProjectKey` holds it for another
 * project only.
 */
export async function expectAuthChecks(t: TestWren, c: AuthCase, keys: { wrongScopeKey: string; otherProjectKey: string }): Promise<void> {
  const call = api(t)
  const at = (projectId: number | string) => c.route.replace(':project_id', String(projectId))
  const what = `${c.method} ${c.route}`

  const none = await call(c.method, at(t.projectId), c.body, null)
  expect(none.status, `${what} without a key`).toBe(401)
  expect(none.body, what).toMatchObject({ type: 'authentication_error', code: 'not_authenticated' })

  const unknown = await call(c.method, at(t.projectId), c.body, 'phx_notarealkey0000000000000000000000000000')
  expect(unknown.status, `${what} with an unknown key`).toBe(401)
  expect(unknown.body.code, what).toBe('authentication_failed')

  const scopeless = await call(c.method, at(t.projectId), c.body, keys.wrongScopeKey)
  expect(scopeless.status, `${what} without scope ${c.scope}`).toBe(403)
  expect(scopeless.body.detail, what).toContain(`'${c.scope}'`)

  const elsewhere = await call(c.method, at(t.projectId), c.body, keys.otherProjectKey)
  expect(elsewhere.status, `${what} with another project's key`).toBe(403)
  expect(elsewhere.body.code, what).toBe('permission_denied')

  const missing = await call(c.method, at(987654), c.body)
  expect(missing.status, `${what} on an unknown project`).toBe(404)
  expect(missing.body.code, what).toBe('not_found')
}
