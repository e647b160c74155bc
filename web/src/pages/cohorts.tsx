// Cohorts: the list with member counts; create and edit a dynamic cohort (persons matching property
// filters and other cohorts, picked by name, all of them) or a static one (a list of distinct ids); a
// cohort's persons, a page at a time; soft delete.
import { useState } from 'preact/hooks'
import { get, withQuery, type PropertyFilter } from '../api'
import type { Cohort, Paginated, Person } from '../answers'
import { ItemPage, NameFields, saveItem, softDelete } from '../components/editor'
import { Empty, ErrorBox } from '../components/feedback'
import { EditorHeader, ListHeader } from '../components/headers'
import { Listing, Pager } from '../components/listing'
import { useAction, useLoad } from '../components/load'
import { JsonView } from '../components/properties'
import { completeFilters, PropertyFilters } from '../components/property-filters'
import { useSession } from '../session'
import { personColumns } from './persons'

export function CohortsPage() {
  const { path, base, can } = useSession()
  const cohorts = useLoad(() => get<Paginated<Cohort>>(path('cohorts/')), [])
  return (
    <div>
      <ListHeader title="Cohorts" create={can('cohort:write') ? { href: `${base}/cohorts/new`, label: 'New cohort' } : null} />
      <Listing
        loaded={cohorts}
        empty={
          <Empty title="No cohorts yet.">
            <p>
              A cohort is a group of persons — by their properties, or a list you give. Use them in trends (breakdown or filter) and flag
              conditions.
            </p>
          </Empty>
        }
        head={
          <>
            <th>Name</th>
            <th>Kind</th>
            <th class="num">Persons</th>
          </>
        }
        row={(c) => (
          <tr>
            <td>
              <a href={`${base}/cohorts/${c.id}`}>{c.name}</a>
              {c.description ? <div class="muted small">{c.description}</div> : null}
            </td>
            <td>{c.is_static ? 'static' : 'dynamic'}</td>
            <td class="num">{c.count ?? '–'}</td>
          </tr>
        )}
      />
    </div>
  )
}

/** The filters of a dynamic cohort the editor can show: one AND group of property filters (else null: shown as JSON). */
function simpleFilters(cohort: Cohort | null): PropertyFilter[] | null {
  const top = cohort?.filters.properties
  if (!top?.values?.length) return []
  const flat = top.values.length === 1 && typeof top.values[0] === 'object' && top.values[0] !== null && 'values' in top.values[0]
  const values = flat ? ((top.values[0] as { values: unknown[] }).values as PropertyFilter[]) : (top.values as PropertyFilter[])
  return values.every((v) => typeof v === 'object' && v !== null && 'key' in v) ? values : null
}

export function CohortPage({ id }: { id: string }) {
  const { path } = useSession()
  return (
    <ItemPage<Cohort>
      id={id}
      url={(id) => path(`cohorts/${id}/`)}
      editor={(cohort) => (
        <>
          <CohortEditor cohort={cohort} />
          {cohort ? <CohortPersons cohort={cohort} /> : null}
        </>
      )}
    />
  )
}

const PERSONS_PAGE = 25

/** The cohort's persons now, a page at a time: the persons list filtered to the cohort. */
function CohortPersons({ cohort }: { cohort: Cohort }) {
  const { path, base } = useSession()
  const [offset, setOffset] = useState(0)
  const persons = useLoad(
    () =>
      get<Paginated<Person>>(
        withQuery(path('persons/'), {
          properties: [{ key: 'id', value: cohort.id, type: 'cohort' }],
          limit: PERSONS_PAGE,
          offset,
        }),
      ),
    [cohort.id, offset],
  )
  return (
    <section class="cohort-persons">
      <h2>Persons in this cohort</h2>
      <Listing
        loaded={persons}
        empty={<Empty title="No persons in this cohort now." />}
        {...personColumns(base)}
        footer={(page) => <Pager offset={offset} size={PERSONS_PAGE} page={page} onOffset={setOffset} />}
      />
    </section>
  )
}

function CohortEditor({ cohort }: { cohort: Cohort | null }) {
  const { path, base, can } = useSession()
  const [name, setName] = useState(cohort?.name ?? '')
  const [description, setDescription] = useState(cohort?.description ?? '')
  const [isStatic, setStatic] = useState(cohort?.is_static ?? false)
  const simple = simpleFilters(cohort)
  const [filters, setFilters] = useState<PropertyFilter[]>(simple ?? [])
  const [distinctIds, setDistinctIds] = useState('')
  const [error, busy, run] = useAction()
  const save = (event: Event) => {
    event.preventDefault()
    run(async () => {
      const ids = distinctIds
        .split(/[\s,]+/)
        .map((d) => d.trim())
        .filter(Boolean)
      const body: Record<string, unknown> = { name, description }
      if (!cohort) body.is_static = isStatic
      if (!isStatic && simple !== null)
        body.filters = {
          properties: {
            type: 'OR',
            values: [{ type: 'AND', values: completeFilters(filters).map((f) => ({ ...f, type: f.type ?? 'person' })) }],
          },
        }
      if (isStatic && ids.length) body.distinct_ids = ids
      await saveItem(path('cohorts/'), cohort?.id ?? null, body, `${base}/cohorts`)
    })
  }
  return (
    <form onSubmit={save}>
      <EditorHeader
        title={cohort ? `Cohort ${cohort.name}` : 'New cohort'}
        busy={busy}
        onDelete={
          cohort && can('cohort:write')
            ? softDelete(run, `Delete the cohort ${cohort.name}?`, path(`cohorts/${cohort.id}/`), `${base}/cohorts`)
            : null
        }
      />
      <ErrorBox error={error} />
      <section class="card grid">
        <NameFields name={name} description={description} onName={setName} onDescription={setDescription} />
        {cohort ? (
          <p class="muted">
            {cohort.is_static ? 'Static' : 'Dynamic'} cohort · {cohort.count ?? '–'} persons
          </p>
        ) : (
          <label>
            Kind
            <select value={isStatic ? 'static' : 'dynamic'} onChange={(e) => setStatic(e.currentTarget.value === 'static')}>
              <option value="dynamic">Dynamic: persons matching filters</option>
              <option value="static">Static: a list of distinct ids</option>
            </select>
          </label>
        )}
      </section>
      {isStatic ? (
        <section class="card">
          <label>
            {cohort ? 'Add distinct ids' : 'Distinct ids'} (one a line, or comma-separated)
            <textarea rows={5} value={distinctIds} onInput={(e) => setDistinctIds(e.currentTarget.value)} />
          </label>
        </section>
      ) : simple === null ? (
        <section class="card">
          <p class="muted">These filters are nested deeper than this editor shows; they are kept as they are.</p>
          <JsonView value={cohort?.filters} />
        </section>
      ) : (
        <section class="card">
          <PropertyFilters label="Persons where all of these hold" value={filters} onChange={setFilters} types={['person', 'cohort']} />
        </section>
      )}
      <div class="form-actions">
        <button type="submit" disabled={busy || !can('cohort:write')}>
          {cohort ? 'Save' : 'Create cohort'}
        </button>
        <a class="button secondary" href={`${base}/cohorts`}>
          Cancel
        </a>
      </div>
    </form>
  )
}
