// Wren's public API, as the app calls it: the signed-in session's cookie (HttpOnly: the app never holds a
// credential), the session's CSRF token echoed on every write, JSON in and out, and an API error's `detail`
// carried to the page.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly code: string | null,
    readonly attr: string | null,
    /** The error's whole JSON body: some name more than the four fields (a query's error, its place in the query). */
    readonly body: Record<string, unknown> | null = null,
  ) {
    super(detail)
  }
}

/** The session's CSRF token, from the cookie sign-in set (services/platform/http/auth.ts CSRF_COOKIE). */
function csrfToken(): string | null {
  const match = /(?:^|;\s*)wren_csrftoken=([^;]*)/.exec(document.cookie)
  return match ? decodeURIComponent(match[1]) : null
}

/** What a request sends beside its body: the CSRF token on a write, the content type with a body. */
function headersFor(method: string, hasBody: boolean): Record<string, string> {
  const headers: Record<string, string> = {}
  const token = csrfToken()
  if (token && !['GET', 'HEAD'].includes(method)) headers['x-csrftoken'] = token
  if (hasBody) headers['content-type'] = 'application/json'
  return headers
}

/** `path` under /api/projects/:id/ when `project` is given, else from the root. */
export function apiPath(project: number | null, path: string): string {
  return project === null ? path : `/api/projects/${project}/${path.replace(/^\//, '')}`
}

/** The largest page of the API's lists (services/platform/http/schemas.ts MAX_LIST_LIMIT): what the app asks for where it shows a whole list. */
export const WHOLE_LIST = 1000

/** Query-string parameters, skipping empty ones; objects and arrays as JSON (what Wren's list routes take). */
export function withQuery(path: string, query: Record<string, unknown>): string {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue
    params.set(key, typeof value === 'object' ? JSON.stringify(value) : String(value))
  }
  const text = params.toString()
  return text ? `${path}${path.includes('?') ? '&' : '?'}${text}` : path
}

export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response
  try {
    response = await fetch(path, {
      method,
      headers: headersFor(method, body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  } catch (error) {
    throw new ApiError(0, `Wren could not be reached: ${(error as Error).message}`, 'network', null)
  }
  const text = await response.text()
  let json: unknown = null
  try {
    json = text ? JSON.parse(text) : null
  } catch {
    json = null
  }
  if (!response.ok) {
    const error = (json ?? {}) as { detail?: unknown; code?: unknown; attr?: unknown }
    const detail = typeof error.detail === 'string' ? error.detail : `Wren answered ${response.status} ${response.statusText}`.trim()
    throw new ApiError(
      response.status,
      detail,
      typeof error.code === 'string' ? error.code : null,
      typeof error.attr === 'string' ? error.attr : null,
      json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : null,
    )
  }
  return json as T
}

export const get = <T>(path: string) => request<T>('GET', path)
export const post = <T>(path: string, body: unknown) => request<T>('POST', path, body)
export const patch = <T>(path: string, body: unknown) => request<T>('PATCH', path, body)
export const del = <T>(path: string) => request<T>('DELETE', path)

/** A CSV export (Wren's ?format=csv) saved as a file through the browser. */
export async function downloadCsv(method: 'GET' | 'POST', path: string, body: unknown, filename: string): Promise<void> {
  const response = await fetch(withQuery(path, { format: 'csv' }), {
    method,
    headers: headersFor(method, Boolean(body)),
    body: body ? JSON.stringify(body) : undefined,
  })
  if (!response.ok) {
    const error = (await response.json().catch(() => ({}))) as { detail?: string }
    throw new ApiError(response.status, error.detail ?? `Wren answered ${response.status}`, null, null)
  }
  const url = URL.createObjectURL(await response.blob())
  const link = document.createElement('a')
  link.href = url
  link.download = filename
  link.click()
  setTimeout(() => URL.revokeObjectURL(url), 1000)
}

export interface PropertyFilter {
  key: string
  value?: unknown
  operator?: string
  type?: string
}

/** Whether `scopes` allow `required` ("object:read" or "object:write"); write implies read. */
export function allows(scopes: string[] | null, required: string): boolean {
  if (scopes === null) return true // not known: let the API answer
  if (scopes.includes('*') || scopes.includes(required)) return true
  const [object, access] = required.split(':')
  return access === 'read' && scopes.includes(`${object}:write`)
}
