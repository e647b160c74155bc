// Pieces every page uses: loading data from the API, errors with the API's detail, empty states, and the
// property filter editor.
import type { ComponentChildren } from 'preact'
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, patch, type PropertyFilter } from './api'
import { navigate } from './router'

export interface Loaded<T> {
  data: T | null
  error: ApiError | null
  loading: boolean
  reload: () => void
}

/** Runs `load` when `deps` change (and on reload); the newest call wins. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: ApiError | null; loading: boolean }>({
    data: null,
    error: null,
    loading: true,
  })
  const [tick, setTick] = useState(0)
  const call = useRef(0)
  useEffect(() => {
    const id = ++call.current
    setState((s) => ({ ...s, loading: true }))
    load().then(
      (data) => id === call.current && setState({ data, error: null, loading: false }),
      (error: unknown) => id === call.current && setState({ data: null, error: asApiError(error), loading: false }),
    )
  }, [...deps, tick])
  const reload = useCallback(() => setTick((t) => t + 1), [])
  return { ...state, reload }
}

export function asApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(0, error instanceof Error ? error.message : String(error), null, null)
}

/** Runs an action from a button or form, keeping its error to show. */
export function useAction(): [ApiError | null, boolean, (action: () => Promise<unknown>) => Promise<boolean>] {
  const [error, setError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState(false)
  const run = useCallback(async (action: () => Promise<unknown>) => {
    setBusy(true)
    setError(null)
    try {
      await action()
      return true
    } catch (e) {
      setError(asApiError(e))
      return false
    } finally {
      setBusy(false)
    }
  }, [])
  return [error, busy, run]
}

export function ErrorBox({ error }: { error: ApiError | null }) {
  if (!error) return null
  return (
    <div class="error" role="alert">
      <strong>{error.status === 403 ? 'Not allowed' : error.status === 401 ? 'Not signed in' : 'Error'}</strong>
      {error.status ? <span class="muted"> ({error.status})</span> : null}: {error.detail}
      {error.attr ? <span class="muted"> — field: {error.attr}</span> : null}
    </div>
  )
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <h3>{title}</h3>
      {children}
    </div>
  )
}

export function Loading() {
  return <p class="muted loading">Loading…</p>
}

export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <header class="page-header">
      <h1>{title}</h1>
      <div class="actions">{children}</div>
    </header>
  )
}

/** A list page's header: its title and, when the key may create one (`create` given), a link to a new one. */
export function ListHeader({ title, create }: { title: string; create: { href: string; label: string } | null }) {
  return (
    <PageHeader title={title}>
      {create ? (
        <a class="button" href={create.href}>
          {create.label}
        </a>
      ) : null}
    </PageHeader>
  )
}

/**
 * An editor's header: its title and, when `onDelete` is given (the object exists and the key may write), a
 * Delete button.
 */
export function EditorHeader({ title, busy, onDelete }: { title: string; busy: boolean; onDelete: (() => void) | null }) {
  return (
    <PageHeader title={title}>
      {onDelete ? (
        <button type="button" class="danger" disabled={busy} onClick={onDelete}>
          Delete
        </button>
      ) : null}
    </PageHeader>
  )
}

/** Deletes an object the way PostHog's API does (PATCH `{deleted: true}`) once the user confirms, then opens `back`. */
export function softDelete(run: (action: () => Promise<unknown>) => Promise<boolean>, question: string, url: string, back: string) {
  return () => {
    if (!confirm(question)) return
    void run(async () => {
      await patch(url, { deleted: true })
      navigate(back)
    })
  }
}

export const OPERATORS = [
  { value: 'exact', label: '=' },
  { value: 'is_not', label: '≠' },
  { value: 'icontains', label: 'contains' },
  { value: 'not_icontains', label: 'does not contain' },
  { value: 'regex', label: 'matches regex' },
  { value: 'not_regex', label: 'does not match regex' },
  { value: 'gt', label: '>' },
  { value: 'lt', label: '<' },
  { value: 'gte', label: '≥' },
  { value: 'lte', label: '≤' },
  { value: 'is_set', label: 'is set' },
  { value: 'is_not_set', label: 'is not set' },
]
const NO_VALUE = new Set(['is_set', 'is_not_set'])

/** Property filters: type (event, person, or cohort), key, operator, value. */
export function PropertyFilters({
  value,
  onChange,
  types = ['event', 'person'],
  label = 'Filters',
}: {
  value: PropertyFilter[]
  onChange: (filters: PropertyFilter[]) => void
  types?: string[]
  label?: string
}) {
  const set = (i: number, patch: Partial<PropertyFilter>) => onChange(value.map((f, j) => (j === i ? normalize({ ...f, ...patch }) : f)))
  return (
    <fieldset class="filters">
      <legend>{label}</legend>
      {value.map((f, i) => (
        <div class="filter-row" key={i}>
          <select aria-label="Property type" value={f.type ?? types[0]} onChange={(e) => set(i, { type: e.currentTarget.value })}>
            {types.map((t) => (
              <option value={t}>{t}</option>
            ))}
          </select>
          {f.type === 'cohort' ? (
            <input
              aria-label="Cohort id"
              placeholder="cohort id"
              value={String(f.value ?? '')}
              onInput={(e) => set(i, { value: e.currentTarget.value })}
            />
          ) : (
            <>
              <input
                aria-label="Property key"
                placeholder="property, e.g. $browser"
                value={f.key}
                onInput={(e) => set(i, { key: e.currentTarget.value })}
              />
              <select aria-label="Operator" value={f.operator ?? 'exact'} onChange={(e) => set(i, { operator: e.currentTarget.value })}>
                {OPERATORS.map((o) => (
                  <option value={o.value}>{o.label}</option>
                ))}
              </select>
              {NO_VALUE.has(f.operator ?? '') ? null : (
                <input
                  aria-label="Value"
                  placeholder="value"
                  value={String(f.value ?? '')}
                  onInput={(e) => set(i, { value: e.currentTarget.value })}
                />
              )}
            </>
          )}
          <button type="button" class="link" aria-label="Remove filter" onClick={() => onChange(value.filter((_, j) => j !== i))}>
            ✕
          </button>
        </div>
      ))}
      <button
        type="button"
        class="secondary small"
        onClick={() => onChange([...value, { key: '', value: '', operator: 'exact', type: types[0] }])}
      >
        + Add filter
      </button>
    </fieldset>
  )
}

/** A filter as the API takes it: a cohort filter's key is "id"; set/not-set filters carry no value. */
function normalize(f: PropertyFilter): PropertyFilter {
  if (f.type === 'cohort') return { key: 'id', value: f.value === '' ? '' : Number(f.value) || f.value, type: 'cohort' }
  if (NO_VALUE.has(f.operator ?? '')) return { key: f.key, operator: f.operator, type: f.type }
  return f
}

/** Only filters that say something: a key (or a cohort), so a half-typed row does not fail the request. */
export const completeFilters = (filters: PropertyFilter[]) =>
  filters.filter((f) => (f.type === 'cohort' ? f.value !== '' && f.value !== undefined : f.key.trim() !== ''))

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '–'
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium' })
}

export function JsonView({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>
}

/** A table of properties (key, value), sorted by key. */
export function PropertiesTable({ properties }: { properties: Record<string, unknown> }) {
  const keys = Object.keys(properties).sort()
  if (!keys.length) return <p class="muted">No properties.</p>
  return (
    <table class="props">
      <tbody>
        {keys.map((k) => (
          <tr>
            <th scope="row">{k}</th>
            <td>{typeof properties[k] === 'string' ? (properties[k] as string) : JSON.stringify(properties[k])}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
