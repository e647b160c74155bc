// A list page's body: its load's state, then its rows as a table in a card.
import type { ComponentChildren } from 'preact'
import type { ApiError } from '../api'
import { ErrorBox, Loading } from './feedback'
import type { Loaded } from './load'

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
