// SQL: a HogQL query run through the Query API (POST …/query/ with a HogQLQuery), its answer as a table with
// each column's type, an error drawn under the line it points at, the query in the URL (a reload or a shared
// link runs it again); saved as an insight (PostHog's SQL insight) and put on a dashboard, where it is a table
// tile. A saved SQL insight opens here too (/insights/:id).
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { ApiError, get, post, withQuery } from '../api'
import type { Insight, PropertyDefinitionPage } from '../answers'
import { ErrorBox } from '../components/feedback'
import { PageHeader } from '../components/headers'
import { asApiError } from '../components/load'
import { SaveInsight } from '../components/save-insight'
import { SqlEditor, type EditorError, type PropertyNames } from '../components/sql-editor'
import { SqlResult } from '../components/sql-result'
import { navigate } from '../router'
import { useSession } from '../session'
import {
  FIRST_QUERY,
  errorPlace,
  hogqlRequest,
  insightSql,
  searchOfSql,
  sqlAnswer,
  sqlInsightQuery,
  sqlName,
  sqlOfSearch,
  type SqlAnswer,
} from '../sql'

type Json = Record<string, unknown>
const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/** A query id for `client_query_id` (crypto.randomUUID needs a secure context; a Wren on a LAN address is not one). */
function queryId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Runs `sql` through the Query API. An answer still being computed (202, its `query_status` incomplete) is
 * asked for again, as PostHog's app does: after 300 ms, then 1.25 times longer each time, at most 3 s apart.
 */
async function runSql(path: (p: string) => string, sql: string): Promise<SqlAnswer> {
  const id = queryId()
  let answer = await post<Json>(path('query/'), hogqlRequest(sql, id))
  for (let delay = 300; isRecord(answer.query_status) && answer.query_status.complete !== true; delay = Math.min(delay * 1.25, 3000)) {
    await wait(delay)
    const status = (await get<Json>(path(`query/${encodeURIComponent(String(answer.query_status.id ?? id))}/`))).query_status
    if (!isRecord(status)) break
    if (status.error === true) throw new ApiError(400, String(status.error_message ?? 'The query failed.'), 'query_error', null, status)
    answer = status.complete === true && isRecord(status.results) ? status.results : { query_status: status }
  }
  const table = sqlAnswer(answer)
  if (!table) throw new ApiError(0, 'Wren answered the query without a table of results.', null, null)
  return table
}

interface Ran {
  sql: string
  answer: SqlAnswer | null
  error: ApiError | null
}

/** `insight`: the saved SQL insight being edited (its page is /insights/:id, the query in the search part). */
export function SqlPage({ search, insight = null }: { search: string; insight?: Insight | null }) {
  const { path, base, can } = useSession()
  const here = insight ? `${base}/insights/${insight.id}` : `${base}/sql`
  const savedSql = insight ? insightSql(insight.query) : null
  const [text, setText] = useState(() => sqlOfSearch(search) ?? savedSql ?? FIRST_QUERY)
  /** Counts the queries put in the editor from outside (the URL changed by back or forward, a link). */
  const [loaded, setLoaded] = useState(0)
  const [ran, setRan] = useState<Ran | null>(null)
  const [busy, setBusy] = useState(false)
  const runs = useRef(0)

  // The URL holds the query: written as edits settle (not read back), read when it changes from outside.
  const written = useRef<string | null>(null)
  useEffect(() => {
    const current = search.replace(/^\?/, '')
    if (current === written.current) return
    written.current = current
    const sql = sqlOfSearch(search)
    if (sql === null || sql === text) return
    setText(sql)
    setLoaded((n) => n + 1)
  }, [search])
  const writeUrl = (sql: string) => {
    const next = searchOfSql(sql)
    if (next === written.current) return
    written.current = next
    navigate(`${here}?${next}`, { replace: true })
  }
  useEffect(() => {
    const timer = setTimeout(() => writeUrl(text), 300)
    return () => clearTimeout(timer)
  }, [text])

  /** The newest run wins: an answer to an earlier one that comes later is dropped. */
  const run = async (sql: string) => {
    if (!sql.trim()) return
    writeUrl(sql)
    const mine = ++runs.current
    setBusy(true)
    try {
      const answer = await runSql(path, sql)
      if (mine === runs.current) setRan({ sql, answer, error: null })
    } catch (error) {
      if (mine === runs.current) setRan({ sql, answer: null, error: asApiError(error) })
    } finally {
      if (mine === runs.current) setBusy(false)
    }
  }
  // A shared link or a reload (the query in the URL), or a saved insight: its answer at once.
  useEffect(() => {
    if (sqlOfSearch(search) !== null || savedSql !== null) void run(text)
  }, [])

  // The error under its line while the text is the one that ran; else (or when it names no place) under the editor.
  const editorError = useMemo((): EditorError | null => {
    if (!ran?.error || ran.sql !== text) return null
    const place = errorPlace(ran.sql, ran.error)
    return place ? { place, message: ran.error.detail } : null
  }, [ran, text === ran?.sql])

  const names = useRef(new Map<string, Promise<string[]>>())
  const propertyNames: PropertyNames = (of, prefix) => {
    const key = `${of}:${prefix}`
    let found = names.current.get(key)
    if (!found) {
      const url = withQuery(path('property_definitions/'), {
        type: of,
        search: prefix,
        limit: 50,
        group_type_index: of === 'group' ? 0 : undefined,
      })
      found = get<PropertyDefinitionPage>(url).then((page) => page.results.map((d) => d.name))
      names.current.set(key, found)
      found.catch(() => names.current.delete(key))
    }
    return found
  }

  return (
    <div class="sql-page">
      <PageHeader title={insight ? (insight.name ?? 'Untitled insight') : 'SQL'} />
      {can('insight:write') ? (
        <SaveInsight
          query={sqlInsightQuery(text)}
          saved={savedSql === null ? null : sqlInsightQuery(savedSql)}
          derivedName={sqlName(text)}
          ready={text.trim() !== ''}
          insight={insight}
          pageOf={(saved) => `${base}/insights/${saved.id}?${searchOfSql(text)}`}
        />
      ) : null}
      <section class="card sql-query" aria-label="Query">
        <SqlEditor
          value={text}
          loaded={loaded}
          onChange={setText}
          onRun={(sql) => void run(sql)}
          error={editorError}
          propertyNames={propertyNames}
        />
        <div class="inline run-bar">
          <button type="button" class="run" disabled={busy || !text.trim()} onClick={() => void run(text)}>
            {busy ? 'Running…' : 'Run'}
          </button>
          <span class="muted small">
            Ctrl+Enter (⌘+Enter on a Mac) runs it. HogQL: the tables <code>events</code>, <code>persons</code>,{' '}
            <code>person_distinct_ids</code>, <code>sessions</code> and <code>groups</code>; <code>properties.$browser</code>,{' '}
            <code>person.properties.email</code>.
          </span>
        </div>
      </section>
      {ran?.error && !editorError ? <ErrorBox error={ran.error} /> : null}
      {ran?.answer ? (
        <section class={`card sql-answer${busy ? ' stale' : ''}`} aria-label="Result" aria-busy={busy}>
          <SqlResult answer={ran.answer} />
        </section>
      ) : null}
    </div>
  )
}
