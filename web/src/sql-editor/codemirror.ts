// The SQL editor itself: CodeMirror 6 with SQL highlighting; completion of HogQL's tables, the fields of the tables
// the query reads (and of `person.`, `session.`), HogQL's functions and the project's property names (from the
// property definitions); Ctrl/Cmd+Enter runs; an error is drawn under the line it points at.
// CodeMirror adds its styles itself: in a document it does so with a <style> element, which the app's
// Content-Security-Policy refuses (style-src 'self'), so the editor lives in a shadow root, where its styles
// are a constructed stylesheet that the policy does not govern.
// CodeMirror is most of the app's weight (about 400 KB of 560), and only the SQL page uses it: this is a bundle
// of its own (index.ts), loaded by components/sql-editor.tsx when the SQL page first opens.
import { EditorState, Prec, StateEffect, StateField, type Extension } from '@codemirror/state'
import {
  Decoration,
  EditorView,
  WidgetType,
  drawSelection,
  highlightActiveLine,
  keymap,
  lineNumbers,
  type DecorationSet,
} from '@codemirror/view'
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands'
import { HighlightStyle, bracketMatching, defaultHighlightStyle, syntaxHighlighting, syntaxTree } from '@codemirror/language'
import { tags } from '@lezer/highlight'
import {
  autocompletion,
  closeBrackets,
  closeBracketsKeymap,
  completionKeymap,
  type Completion,
  type CompletionContext,
  type CompletionResult,
} from '@codemirror/autocomplete'
import { SQLDialect, sql } from '@codemirror/lang-sql'
import { HOGQL_FUNCTIONS, HOGQL_TABLES, fieldName, offerAt, type ErrorPlace } from '../sql'

/** Property names of a kind matching a typed prefix (the project's property definitions). */
export type PropertyNames = (of: 'event' | 'person' | 'group', search: string) => Promise<string[]>

/** An error to draw: where it points and what it says. */
export interface EditorError {
  place: ErrorPlace
  message: string
}

/** HogQL as the highlighter reads it: standard SQL's words and ClickHouse's, `$names`, backtick and double-quoted identifiers. */
const HogQL = SQLDialect.define({
  keywords:
    'select from where group by order having limit offset with as and or not in is null like ilike between case when then else end ' +
    'join left right inner outer full cross on using union all distinct asc desc interval array prewhere qualify sample over partition ' +
    'rows range window true false',
  // The highlighter looks words up lower-cased.
  builtin: HOGQL_FUNCTIONS.join(' ').toLowerCase(),
  identifierQuotes: '`"',
  specialVar: '$?',
  caseInsensitiveIdentifiers: true,
})

/** HogQL's functions in a colour of their own (the default style leaves them plain). */
const FUNCTION_STYLE = HighlightStyle.define([{ tag: tags.standard(tags.name), color: '#0e7490' }])

const setError = StateEffect.define<EditorError | null>()

class ErrorWidget extends WidgetType {
  constructor(readonly error: EditorError) {
    super()
  }
  override eq(other: ErrorWidget): boolean {
    return other.error.message === this.error.message && other.error.place.offset === this.error.place.offset
  }
  override toDOM(): HTMLElement {
    const box = document.createElement('div')
    box.className = 'cm-sql-error'
    box.setAttribute('role', 'alert')
    box.dataset.line = String(this.error.place.line)
    box.dataset.column = String(this.error.place.column)
    const caret = document.createElement('div')
    caret.className = 'cm-sql-error-caret'
    caret.textContent = '^'
    caret.style.paddingLeft = `${this.error.place.column}ch`
    const text = document.createElement('div')
    text.className = 'cm-sql-error-text'
    text.textContent = this.error.message
    box.append(caret, text)
    return box
  }
}

/** The error's decorations: its span underlined, and its message in a block under its line. */
function errorDecorations(state: EditorState, error: EditorError): DecorationSet {
  const { offset, end } = error.place
  const line = state.doc.lineAt(Math.min(offset, state.doc.length))
  const ranges = []
  const to = Math.min(Math.max(end, offset + 1), line.to)
  if (offset < to) ranges.push(Decoration.mark({ class: 'cm-sql-error-mark' }).range(offset, to))
  ranges.push(Decoration.widget({ widget: new ErrorWidget(error), block: true, side: 1 }).range(line.to))
  return Decoration.set(ranges, true)
}

/** The error drawn, until it is replaced or the text changes. */
const errorField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(decorations, tr) {
    for (const effect of tr.effects)
      if (effect.is(setError)) return effect.value ? errorDecorations(tr.state, effect.value) : Decoration.none
    return tr.docChanged ? Decoration.none : decorations
  },
  provide: (field) => EditorView.decorations.from(field),
})

const callFunction = (name: string): Completion => ({
  label: name,
  type: 'function',
  apply: (view, _completion, from, to) =>
    view.dispatch({ changes: { from, to, insert: `${name}()` }, selection: { anchor: from + name.length + 1 } }),
})
const FUNCTIONS = HOGQL_FUNCTIONS.map(callFunction)
const TABLES: Completion[] = Object.keys(HOGQL_TABLES).map((table) => ({ label: table, type: 'class', detail: 'table' }))

/** HogQL's completions at the cursor: by the dotted names before the word typed. */
function hogqlCompletions(propertyNames: PropertyNames) {
  return async (context: CompletionContext): Promise<CompletionResult | null> => {
    const node = syntaxTree(context.state).resolveInner(context.pos, -1)
    if (/String|Comment/.test(node.name)) return null
    const word = context.matchBefore(/[\w$]*/)
    if (!word) return null
    const before = context.state.sliceDoc(Math.max(0, word.from - 300), word.from)
    const dotted = /((?:[A-Za-z_$][\w$]*\.)+)$/.exec(before)
    const chain = dotted ? dotted[1].slice(0, -1).split('.') : []
    if (!chain.length && word.from === word.to && !context.explicit) return null
    const offer = offerAt(context.state.doc.toString(), chain)
    if (!offer) return null
    if (offer.kind === 'properties') {
      const names = await propertyNames(offer.of, word.text).catch(() => [])
      if (context.aborted) return null
      return {
        from: word.from,
        options: names.map((name) => ({ label: name, apply: fieldName(name), type: 'property', detail: `${offer.of} property` })),
        filter: false,
      }
    }
    const fields = offer.fields.map((field): Completion => ({ label: field, type: 'variable', detail: 'field' }))
    return {
      from: word.from,
      options: offer.kind === 'fields' ? fields : [...fields, ...TABLES, ...FUNCTIONS],
      validFor: /^[\w$]*$/,
    }
  }
}

const THEME = EditorView.theme({
  '&': { fontSize: '13.5px', background: '#fff', border: '1px solid #cbd5e1', borderRadius: '6px' },
  '&.cm-focused': { outline: '2px solid #1d4ed8', outlineOffset: '-1px' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', minHeight: '9em', maxHeight: '28em' },
  '.cm-content': { padding: '6px 0' },
  '.cm-gutters': { background: '#f8fafc', color: '#94a3b8', border: 'none', borderRadius: '6px 0 0 6px' },
  '.cm-activeLine': { background: '#f1f5f9' },
  '.cm-sql-error': {
    color: '#b91c1c',
    background: '#fef2f2',
    borderLeft: '3px solid #b91c1c',
    padding: '2px 8px 4px 4px',
    whiteSpace: 'pre-wrap',
    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
  },
  '.cm-sql-error-caret': { fontWeight: 'bold', lineHeight: '1' },
  '.cm-sql-error-text': { fontFamily: 'system-ui, sans-serif', fontSize: '13px' },
  '.cm-sql-error-mark': { textDecoration: 'underline wavy #b91c1c', textUnderlineOffset: '3px' },
  '.cm-tooltip-autocomplete': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' },
})

/** What the editor is opened with. */
export interface EditorOptions {
  /** The text it opens with. */
  value: string
  onChange: (sql: string) => void
  onRun: (sql: string) => void
  propertyNames: PropertyNames
}

/** An open editor: its text replaced from outside, its error drawn, and closed. */
export interface OpenEditor {
  setText(sql: string): void
  setError(error: EditorError | null): void
  destroy(): void
}

/** Opens the editor in a shadow root of `host`. */
export function openSqlEditor(host: HTMLElement, options: EditorOptions): OpenEditor {
  const shadow = host.attachShadow({ mode: 'open' })
  const run = (v: EditorView) => {
    options.onRun(v.state.doc.toString())
    return true
  }
  const extensions: Extension[] = [
    lineNumbers(),
    history(),
    drawSelection(),
    highlightActiveLine(),
    bracketMatching(),
    closeBrackets(),
    syntaxHighlighting(FUNCTION_STYLE),
    syntaxHighlighting(defaultHighlightStyle),
    sql({ dialect: HogQL }),
    HogQL.language.data.of({ autocomplete: hogqlCompletions((of, search) => options.propertyNames(of, search)) }),
    autocompletion({ icons: false }),
    Prec.highest(
      keymap.of([
        { key: 'Mod-Enter', run },
        { key: 'Ctrl-Enter', run },
      ]),
    ),
    keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, ...completionKeymap]),
    EditorView.lineWrapping,
    EditorView.contentAttributes.of({ 'aria-label': 'SQL query', 'aria-multiline': 'true' }),
    EditorView.updateListener.of((update) => {
      if (update.docChanged) options.onChange(update.state.doc.toString())
    }),
    errorField,
    THEME,
  ]
  const view = new EditorView({ state: EditorState.create({ doc: options.value, extensions }), parent: shadow, root: shadow })
  return {
    setText(sql) {
      if (view.state.doc.toString() !== sql) view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: sql } })
    },
    setError: (error) => view.dispatch({ effects: setError.of(error) }),
    destroy: () => view.destroy(),
  }
}
