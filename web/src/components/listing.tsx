// A list page's body: its load's state, then its rows as a table in a card; and the pager under a page of them.
import type { ComponentChildren } from 'preact'
import type { ApiError } from '../api'
import type { Paginated } from '../answers'
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

/** Previous and next pages of `size` from `offset`, and which rows of how many this page shows. */
export function Pager({
  offset,
  size,
  page,
  onOffset,
}: {
  offset: number
  size: number
  page: Paginated<unknown>
  onOffset: (offset: number) => void
}) {
  return (
    <div class="pager">
      <button type="button" class="secondary" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - size))}>
        ← Previous
      </button>
      <span class="muted">
        {offset + 1}–{offset + page.results.length}
        {page.count !== undefined ? ` of ${page.count}` : ''}
      </span>
      <button type="button" class="secondary" disabled={!page.next} onClick={() => onOffset(offset + size)}>
        Next →
      </button>
    </div>
  )
}
