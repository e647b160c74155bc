// The persons behind a number of an insight (a funnel's step, a retention cell, a lifecycle bar, a paths node):
// an ActorsQuery over the insight's actors query (`source`), a page at a time, each person linking to their page.
import { useEffect, useRef, useState } from 'preact/hooks'
import { post } from '../api'
import { useSession } from '../session'
import { ErrorBox, Loading } from './feedback'
import { useLoad } from './load'

type Json = Record<string, unknown>

const PERSONS_PAGE = 100

type Person = { id: string; properties?: Record<string, unknown>; distinct_ids?: string[] }
interface ActorsAnswer {
  results: Array<[Person, string, ...unknown[]]>
  hasMore?: boolean
}

/** A person as the list names them: email, name, a distinct id, else the id. */
function personLabel(person: Person): string {
  const p = person.properties ?? {}
  for (const key of ['email', 'name']) if (typeof p[key] === 'string' && p[key]) return p[key] as string
  return person.distinct_ids?.[0] ?? person.id
}

/**
 * `source`: the ActorsQuery's source (an InsightActorsQuery, a FunnelsActorsQuery, …); `columns`: more columns to
 * select after the person and its id, which `keep` may read to keep only some rows (a retention cell's interval).
 * `attributes`: the panel's own data attributes, naming what it lists.
 */
export function PersonsPanel({
  title,
  source,
  columns = [],
  keep,
  className,
  attributes = {},
  onClose,
}: {
  title: string
  source: Json
  columns?: string[]
  keep?: (row: unknown[]) => boolean
  className: string
  attributes?: Record<string, string | number>
  onClose: () => void
}) {
  const { path, base } = useSession()
  const [pages, setPages] = useState(1)
  const box = useRef<HTMLElement>(null)
  const asked = JSON.stringify(source)
  useEffect(() => box.current?.scrollIntoView({ block: 'nearest' }), [asked])
  const loaded = useLoad(
    () =>
      post<ActorsAnswer>(path('query/'), {
        query: { kind: 'ActorsQuery', select: ['person', 'id', ...columns], orderBy: ['person'], limit: PERSONS_PAGE * pages, source },
      }),
    [asked, pages],
  )
  const rows = loaded.data ? loaded.data.results.filter((row) => !keep || keep(row)) : []
  return (
    <section class={`card persons-panel ${className}`} aria-label="Persons" {...attributes} ref={box}>
      <header class="inline persons-head">
        <h3>{title}</h3>
        <button type="button" class="secondary small" onClick={onClose}>
          Close
        </button>
      </header>
      <ErrorBox error={loaded.error} />
      {loaded.loading && !loaded.data ? <Loading /> : null}
      {loaded.data ? (
        rows.length ? (
          <>
            <p class="muted small" data-testid="persons-count">
              {rows.length}
              {loaded.data.hasMore ? '+' : ''} {rows.length === 1 ? 'person' : 'persons'}
            </p>
            <ul class="persons-list">
              {rows.map(([person, id]) => (
                <li>
                  <a href={`${base}/persons/${id}`}>{personLabel(person)}</a>
                </li>
              ))}
            </ul>
            {loaded.data.hasMore ? (
              <button type="button" class="secondary small" disabled={loaded.loading} onClick={() => setPages((p) => p + 1)}>
                Load more
              </button>
            ) : null}
          </>
        ) : (
          <p class="muted nobody">Nobody.</p>
        )
      ) : null}
    </section>
  )
}
