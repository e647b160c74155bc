// The property filter editor (event, person, cohort, element and HogQL filters, and any type whose keys are a fixed
// list, such as the recordings list's), and the filters of it the API is sent. A cohort is picked by its name; its
// id is sent. An element filter matches autocaptured elements (services/analytics/property-filters/sql.ts: text and
// href with every operator, tag name and selector with = and ≠); a HogQL filter is one expression, no operator.
import { useEffect, useState } from 'preact/hooks'
import { get, WHOLE_LIST, withQuery, type PropertyFilter } from '../api'
import { completeFilters } from '../query'
import type { Cohort, Paginated } from '../answers'
import { useSession } from '../session'
import { useLoad } from './load'

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

/** PostHog's element filter keys; tag name and selector match exactly (or not). */
const ELEMENT_KEYS: KeyChoice[] = [
  { key: 'text', label: 'text' },
  { key: 'href', label: 'link (href)' },
  { key: 'tag_name', label: 'tag name' },
  { key: 'selector', label: 'CSS selector' },
]
const EXACT_ONLY = new Set(['tag_name', 'selector'])
const TYPE_LABELS: Record<string, string> = { hogql: 'HogQL' }

/** A key a filter type allows, as the key select shows it, and the values it is known to take (suggested). */
export interface KeyChoice {
  key: string
  label: string
  values?: string[]
}

/**
 * Property filters: type (event, person, cohort, …), key, operator, value. `keys` lists the only keys a type
 * takes (a select instead of a free key); `typeLabels` names a type in its select.
 */
export function PropertyFilters({
  value,
  onChange,
  types = ['event', 'person'],
  label = 'Filters',
  keys = {},
  typeLabels = {},
}: {
  value: PropertyFilter[]
  onChange: (filters: PropertyFilter[]) => void
  types?: string[]
  label?: string
  keys?: Record<string, KeyChoice[]>
  typeLabels?: Record<string, string>
}) {
  keys = { element: ELEMENT_KEYS, ...keys }
  typeLabels = { ...TYPE_LABELS, ...typeLabels }
  const set = (i: number, patch: Partial<PropertyFilter>) =>
    onChange(value.map((f, j) => (j === i ? normalize({ ...f, ...patch }, keys, f.type ?? types[0]) : f)))
  // The project's cohorts, asked once a cohort filter is shown.
  const { path } = useSession()
  const wantsCohorts = value.some((f) => f.type === 'cohort')
  const cohorts = useLoad(
    () =>
      wantsCohorts
        ? get<Paginated<Cohort>>(withQuery(path('cohorts/'), { limit: WHOLE_LIST })).then((page) => page.results)
        : Promise.resolve(null),
    [wantsCohorts],
  )
  return (
    <fieldset class="filters">
      <legend>{label}</legend>
      {value.map((f, i) => (
        <div class="filter-row" key={i}>
          <select aria-label="Property type" value={f.type ?? types[0]} onChange={(e) => set(i, { type: e.currentTarget.value })}>
            {types.map((t) => (
              <option value={t}>{typeLabels[t] ?? t}</option>
            ))}
          </select>
          {f.type === 'hogql' ? (
            <input
              aria-label="HogQL expression"
              class="hogql-filter"
              placeholder="e.g. properties.$browser = 'Chrome'"
              value={f.key}
              onInput={(e) => set(i, { key: e.currentTarget.value })}
            />
          ) : f.type === 'cohort' ? (
            <select aria-label="Cohort" value={String(f.value ?? '')} onChange={(e) => set(i, { value: e.currentTarget.value })}>
              <option value="">{cohorts.data ? 'Choose a cohort…' : cohorts.error ? cohorts.error.detail : 'Loading cohorts…'}</option>
              {(cohorts.data ?? []).map((c) => (
                <option value={String(c.id)} selected={String(c.id) === String(f.value)}>
                  {c.name || `Cohort ${c.id}`}
                </option>
              ))}
            </select>
          ) : (
            <>
              {keys[f.type ?? types[0]] ? (
                <select aria-label="Property key" value={f.key} onChange={(e) => set(i, { key: e.currentTarget.value })}>
                  {keys[f.type ?? types[0]].map((k) => (
                    <option value={k.key}>{k.label}</option>
                  ))}
                </select>
              ) : (
                <input
                  aria-label="Property key"
                  placeholder="property, e.g. $browser"
                  value={f.key}
                  onInput={(e) => set(i, { key: e.currentTarget.value })}
                />
              )}
              <select aria-label="Operator" value={f.operator ?? 'exact'} onChange={(e) => set(i, { operator: e.currentTarget.value })}>
                {OPERATORS.filter(
                  (o) => !(f.type === 'element' && EXACT_ONLY.has(f.key)) || o.value === 'exact' || o.value === 'is_not',
                ).map((o) => (
                  <option value={o.value}>{o.label}</option>
                ))}
              </select>
              {NO_VALUE.has(f.operator ?? '') ? null : (
                <>
                  <input
                    aria-label="Value"
                    placeholder="value"
                    list={suggested(keys, f) ? `filter-values-${f.type}-${f.key}` : undefined}
                    value={String(f.value ?? '')}
                    onInput={(e) => set(i, { value: e.currentTarget.value })}
                  />
                  {suggested(keys, f) ? (
                    <datalist id={`filter-values-${f.type}-${f.key}`}>
                      {suggested(keys, f)!.map((v) => (
                        <option value={v} />
                      ))}
                    </datalist>
                  ) : null}
                </>
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
        onClick={() => onChange([...value, normalize({ key: '', value: '', operator: 'exact', type: types[0] }, keys)])}
      >
        + Add filter
      </button>
    </fieldset>
  )
}

/** The values a fixed key is known to take, if any. */
const suggested = (keys: Record<string, KeyChoice[]>, f: PropertyFilter) => keys[f.type ?? '']?.find((k) => k.key === f.key)?.values

/**
 * A filter as the API takes it: a cohort filter's key is "id" and its value the cohort's id; a type with fixed
 * keys takes only those. A change of type (from `was`) into or out of a cohort or fixed keys starts the filter
 * afresh (its key and value meant something else); set/not-set filters carry no value.
 */
function normalize(f: PropertyFilter, keys: Record<string, KeyChoice[]>, was?: string): PropertyFilter {
  const changed = was !== undefined && was !== f.type
  const fresh = changed && (f.type === 'cohort' || was === 'cohort' || was === 'hogql' || !!keys[f.type ?? ''] || !!keys[was])
  if (fresh) f = { ...f, key: '', value: '' }
  if (f.type === 'cohort') return { key: 'id', value: f.value === '' ? '' : Number(f.value) || f.value, type: 'cohort' }
  if (f.type === 'hogql') return { key: changed ? '' : f.key, type: 'hogql' }
  const fixed = keys[f.type ?? '']
  if (fixed && !fixed.some((k) => k.key === f.key)) f = { ...f, key: fixed[0].key }
  if (f.type === 'element' && EXACT_ONLY.has(f.key) && f.operator !== 'exact' && f.operator !== 'is_not') f = { ...f, operator: 'exact' }
  if (NO_VALUE.has(f.operator ?? '')) return { key: f.key, operator: f.operator, type: f.type }
  return f
}

// The trends query sends only complete filters too; the rule lives beside it, where Node's unit tests reach it.
export { completeFilters }

/**
 * Filters edited on a page whose URL keeps them (Events, Persons): the rows being edited, an incomplete one too
 * (a new row has no key yet, and the URL keeps only complete filters), and `commit` of the complete ones on every
 * edit. A URL changed from elsewhere (back, a link) replaces the rows.
 */
export function useDraftFilters(
  fromUrl: PropertyFilter[],
  commit: (complete: PropertyFilter[]) => void,
): [PropertyFilter[], (next: PropertyFilter[]) => void] {
  const [rows, setRows] = useState(fromUrl)
  const inUrl = JSON.stringify(fromUrl)
  useEffect(() => {
    if (JSON.stringify(completeFilters(rows)) !== inUrl) setRows(fromUrl)
  }, [inUrl])
  return [
    rows,
    (next) => {
      setRows(next)
      commit(completeFilters(next))
    },
  ]
}
