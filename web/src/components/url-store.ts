// An editor's state kept in a store and mirrored into the page's URL (the trends and funnels editors): read
// from the URL on load and whenever the URL changes from outside (back, forward, a link); the URL is written
// from the state once edits settle, and that write is not read back.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { navigate } from '../router'

/** What useUrlStore needs of a store. */
export interface StateStore<Q> {
  get(): Q
  /** Calls `listener` after every change; returns the unsubscribe. */
  subscribe(listener: (query: Q) => void): () => void
  /** The whole state, as read from a URL (load, back/forward). */
  replace(query: Q): void
}

/** A value that follows `value` once it has stayed the same for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value)
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms)
    return () => clearTimeout(timer)
  }, [JSON.stringify(value)])
  return settled
}

/** The editor's store (made once by `create`) and its current state, kept in step with the URL `here?…`. */
export function useUrlStore<Q, S extends StateStore<Q>>(
  search: string,
  here: string,
  create: (initial: Q) => S,
  decode: (search: string) => Q,
  encode: (query: Q) => string,
): [S, Q] {
  const store = useMemo(() => create(decode(search)), [])
  const [query, setQuery] = useState(store.get())
  useEffect(() => store.subscribe(setQuery), [store])
  const written = useRef<string | null>(null)
  useEffect(() => {
    const current = search.replace(/^\?/, '')
    if (current === written.current) return
    written.current = current
    store.replace(decode(current))
  }, [search])
  useEffect(() => {
    const timer = setTimeout(() => {
      const next = encode(query)
      if (next === written.current) return
      written.current = next
      navigate(`${here}${next ? `?${next}` : ''}`, { replace: true })
    }, 250)
    return () => clearTimeout(timer)
  }, [query])
  return [store, query]
}
