// Pieces every page uses: loading data from the API, errors with the API's detail, empty states, and the
// property filter editor.
import type { ComponentChildren } from 'preact'
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, get, patch, post, type PropertyFilter } from './api'
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

/**
 * A page's list: the load's error (or the page's own `error`), loading, `empty` when there are no rows,
 * else a table of `head` and one `row` per result, then `footer` (a pager) in the same card.
 */
export function Listing<Page extends { results: unknown[] }>({
  loaded,
  error = null,
  empty,
  head,
  row,
  footer = null,
  tableClass = 'list',
}: {
  loaded: Loaded<Page>
  error?: ApiError | null
  empty: ComponentChildren
  head: ComponentChildren
  row: (item: Page['results'][number]) => ComponentChildren
  footer?: ((page: Page) => ComponentChildren) | null
  tableClass?: string
}) {
  const page = loaded.data
  const rows = page?.results
  return (
    <>
      <ErrorBox error={loaded.error ?? error} />
      {loaded.loading && !rows ? <Loading /> : null}
      {rows && rows.length === 0 ? empty : null}
      {rows && rows.length > 0 ? (
        <div class="card scroll">
          <table class={tableClass}>
            <thead>
              <tr>{head}</tr>
            </thead>
            <tbody>{rows.map(row)}</tbody>
          </table>
          {footer && page ? footer(page) : null}
        </div>
      ) : null}
    </>
  )
}

/** An object's page: `new` opens an empty editor; any other id is loaded from `url(id)` first. */
export function ItemPage<T>({
  id,
  url,
  editor,
}: {
  id: string
  url: (id: string) => string
  editor: (item: T | null) => ComponentChildren
}) {
  const isNew = id === 'new'
  const item = useLoad(() => (isNew ? Promise.resolve(null) : get<T>(url(encodeURIComponent(id)))), [id])
  if (item.error) return <ErrorBox error={item.error} />
  if (item.loading) return <Loading />
  return <>{editor(item.data)}</>
}

/** Saves an editor's object: PATCH when it exists (`id`), else POST to its collection; then opens `back`. */
export async function saveItem(collection: string, id: number | null, body: object, back: string): Promise<void> {
  if (id === null) await post(collection, body)
  else await patch(`${collection}${id}/`, body)
  navigate(back)
}

/** The name and description fields of an editor. */
export function NameFields(props: { name: string; description: string; onName: (v: string) => void; onDescription: (v: string) => void }) {
  return (
    <>
      <label>
        Name
        <input name="name" required value={props.name} onInput={(e) => props.onName(e.currentTarget.value)} />
      </label>
      <label>
        Description
        <input name="description" value={props.description} onInput={(e) => props.onDescription(e.currentTarget.value)} />
      </label>
    </>
  )
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
