// The SQL page's editor: CodeMirror (sql-editor/codemirror.ts), in a bundle of its own that the first SQL page
// loads (most of the app's weight is CodeMirror, and no other page needs it). Until it has loaded, the host is
// an empty box of the editor's size; if it cannot load, the page says so.
import { useEffect, useRef, useState } from 'preact/hooks'
import type { EditorError, OpenEditor, PropertyNames } from '../sql-editor/codemirror'

export type { EditorError, PropertyNames } from '../sql-editor/codemirror'

/** Where Wren serves the editor's bundle (services/web/routes.ts SQL_EDITOR_SCRIPT_URL). */
const SCRIPT_URL = '/static/wren/sql-editor.js'

let loading: Promise<NonNullable<typeof globalThis.wrenSqlEditor>> | null = null

/** The editor's bundle, loaded once; a failed load is tried again next time. */
function loadEditor(): Promise<NonNullable<typeof globalThis.wrenSqlEditor>> {
  return (loading ??= new Promise((resolve, reject) => {
    const script = document.createElement('script')
    script.src = SCRIPT_URL
    script.onload = () => (globalThis.wrenSqlEditor ? resolve(globalThis.wrenSqlEditor) : reject(new Error('the editor did not start')))
    script.onerror = () => {
      script.remove()
      loading = null
      reject(new Error('the editor could not be loaded'))
    }
    document.head.append(script)
  }))
}

/**
 * The editor. `value` is its text when it opens, and replaces the text each time `loaded` changes (a query
 * from outside: the URL, a saved insight); every edit is reported through `onChange`; `onRun` on
 * Ctrl/Cmd+Enter; `error` is drawn under its line.
 */
export function SqlEditor({
  value,
  loaded,
  onChange,
  onRun,
  error,
  propertyNames,
}: {
  value: string
  loaded: number
  onChange: (sql: string) => void
  onRun: (sql: string) => void
  error: EditorError | null
  propertyNames: PropertyNames
}) {
  const host = useRef<HTMLDivElement>(null)
  const editor = useRef<OpenEditor | null>(null)
  const [failed, setFailed] = useState<string | null>(null)
  const latest = useRef({ value, onChange, onRun, propertyNames, error })
  latest.current = { value, onChange, onRun, propertyNames, error }

  useEffect(() => {
    let closed = false
    loadEditor().then(
      ({ openSqlEditor }) => {
        if (closed || !host.current) return
        editor.current = openSqlEditor(host.current, {
          value: latest.current.value,
          onChange: (sql) => latest.current.onChange(sql),
          onRun: (sql) => latest.current.onRun(sql),
          propertyNames: (of, search) => latest.current.propertyNames(of, search),
        })
        if (latest.current.error) editor.current.setError(latest.current.error)
      },
      (e: Error) => !closed && setFailed(e.message),
    )
    return () => {
      closed = true
      editor.current?.destroy()
    }
  }, [])

  // Only a new `loaded` replaces the text: `value` lags the editor's own edits (effects run after paint), and
  // writing it back would undo the keys typed since.
  useEffect(() => editor.current?.setText(value), [loaded])

  useEffect(() => editor.current?.setError(error), [error])

  if (failed) return <p class="error">The SQL editor could not load ({failed}); reload the page to try again.</p>
  return <div class="sql-editor" ref={host} data-testid="sql-editor" />
}
