// The SQL editor's bundle (services/web/routes.ts SQL_EDITOR_BUNDLE): puts openSqlEditor where the app's loader
// (components/sql-editor.tsx) finds it once the script has run.
import { openSqlEditor } from './codemirror'

declare global {
  var wrenSqlEditor: { openSqlEditor: typeof openSqlEditor } | undefined
}

globalThis.wrenSqlEditor = { openSqlEditor }
