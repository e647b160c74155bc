// The property filter editor (event, person and cohort filters), and the filters of it the API is sent.
import type { PropertyFilter } from '../api'

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

// The trends query sends only complete filters too; the rule lives beside it, where Node's unit tests reach it.
export { completeFilters } from '../query'
