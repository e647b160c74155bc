// PostHog's own HogQL parser (npm @posthog/hogql-parser: its C++ ANTLR grammar built to WebAssembly), loaded
// once per process. It reads text into PostHog's AST as JSON; it resolves nothing (printer.ts does).
//
// Two hazards of the WebAssembly build, measured (bench/hogql.ts): a chain of ~400 binary operators, ~200
// nested brackets or ~300 unary minuses overflows its stack, and the trapped instance answers every later
// call with another trap; and its time grows steeply with nesting (20 nested calls take about half a second
// on an idle core). So text is checked first (checkShape: length, bracket depth, operators), a trapped
// instance is replaced by a spare loaded beside it, and parsed text is kept in a small cache (the same
// filter is parsed once, not by every query that reads it).
import createHogQLParser from '@posthog/hogql-parser'
import { wrenError, type WrenError } from '../../platform/errors'

type Parser = Awaited<ReturnType<typeof createHogQLParser>>

/** One AST node as the parser writes it: `node` names its type (query-api.md §7.3). */
export interface HogNode {
  node: string
  start?: { offset: number }
  end?: { offset: number }
  // The AST is PostHog's JSON; the printer reads each node type's keys.
  [key: string]: any // eslint-disable-line @typescript-eslint/no-explicit-any
}

let current: Parser | null = await createHogQLParser()
let spare: Parser | null = await createHogQLParser()
let loading: Promise<void> | null = null

function replaceTrapped(): void {
  current = spare
  spare = null
  loading ??= createHogQLParser().then(
    (p) => {
      if (current) spare = p
      else current = p
      loading = null
    },
    () => {
      loading = null
    },
  )
}

/** How long a text the parser reads: a query, and an expression (a filter, a breakdown, a math). */
export const MAX_QUERY_CHARS = 64 * 1024
export const MAX_EXPRESSION_CHARS = 2000
/** How deep brackets, calls and subqueries may nest (the parser's time grows steeply with it). */
export const MAX_NESTING = 32
/** How many operators one text may have (a chain of ~400 overflows the parser's stack). */
export const MAX_OPERATORS = 250
/** How many NOTs (each nests the next, at the parser's cost of a bracket). */
const MAX_NOTS = MAX_NESTING

/** Line and column (both from 1) of an offset in `text`. */
export function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)))
  const lines = before.split('\n')
  return { line: lines.length, column: lines[lines.length - 1].length + 1 }
}

/** The 400 of a construct HogQL refuses, naming it and where it is. */
export function hogqlError(text: string, why: string, offset: number | undefined, attr: string | null): WrenError {
  const at = offset === undefined ? '' : ` (line ${position(text, offset).line}, column ${position(text, offset).column})`
  return wrenError('invalid_hogql', `${why}${at}.`, attr)
}

/**
 * Refuses text the parser should not be handed: past the length, nesting deeper than MAX_NESTING, more
 * than MAX_OPERATORS operators. Strings, quoted names and comments are skipped as the grammar reads them.
 */
function checkShape(text: string, maxChars: number, attr: string | null): void {
  if (text.length > maxChars)
    throw hogqlError(text, `The HogQL is ${text.length} characters long, past the ${maxChars} this takes`, undefined, attr)
  let depth = 0
  let operators = 0
  let nots = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === "'" || c === '"' || c === '`') {
      // A quoted run ends at its unescaped closing quote (a doubled quote or a backslash escapes one).
      for (i++; i < text.length; i++) {
        if (text[i] === '\\') i++
        else if (text[i] === c) {
          if (text[i + 1] === c) i++
          else break
        }
      }
    } else if (c === '-' && text[i + 1] === '-') {
      while (i < text.length && text[i] !== '\n') i++
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2)
      i = end < 0 ? text.length : end + 1
    } else if (c === '(' || c === '[' || c === '{') {
      if (++depth > MAX_NESTING) throw hogqlError(text, `brackets, calls and subqueries nest more than ${MAX_NESTING} deep`, i, attr)
    } else if (c === ')' || c === ']' || c === '}') {
      depth--
    } else if ('+-*/%=<>!|?'.includes(c)) {
      if (++operators > MAX_OPERATORS) throw hogqlError(text, `the HogQL has more than ${MAX_OPERATORS} operators`, i, attr)
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i
      while (j < text.length && /[\w$]/.test(text[j])) j++
      const word = text.slice(i, j).toUpperCase()
      if (word === 'AND' || word === 'OR') {
        if (++operators > MAX_OPERATORS) throw hogqlError(text, `the HogQL has more than ${MAX_OPERATORS} operators`, i, attr)
      } else if (word === 'NOT' && ++nots > MAX_NOTS) throw hogqlError(text, `the HogQL has more than ${MAX_NOTS} NOTs`, i, attr)
      i = j - 1
    }
  }
}

const cache = new Map<string, HogNode>()
const CACHE_ENTRIES = 500

function parse(kind: 'select' | 'expr', text: string, attr: string | null): HogNode {
  const key = `${kind}:${text}`
  const hit = cache.get(key)
  if (hit) {
    cache.delete(key)
    cache.set(key, hit)
    return hit
  }
  checkShape(text, kind === 'select' ? MAX_QUERY_CHARS : MAX_EXPRESSION_CHARS, attr)
  const parser = current
  if (!parser) throw wrenError('unavailable', 'The HogQL parser is restarting: retry in a moment.')
  let json: string
  try {
    json = kind === 'select' ? parser.parseSelect(text) : parser.parseExpr(text)
  } catch {
    // A trap of the WebAssembly engine (its stack, past what checkShape bounds): this instance is done.
    replaceTrapped()
    throw hogqlError(text, 'The HogQL is nested too deeply or too long for the parser', undefined, attr)
  }
  const ast = JSON.parse(json) as HogNode & { error?: boolean; message?: string; type?: string }
  if (ast.error) {
    const what =
      ast.type === 'NotImplementedError'
        ? String(ast.message).replace(/^Unsupported: /, 'Unsupported HogQL: ')
        : `Syntax error: ${ast.message}`
    throw hogqlError(text, what, ast.start?.offset, attr)
  }
  cache.set(key, ast)
  if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!)
  return ast
}

/** A SELECT (or a set of them joined by UNION / INTERSECT / EXCEPT) as PostHog's AST; a 400 otherwise. */
export const parseSelect = (text: string, attr: string | null = null): HogNode => parse('select', text, attr)
/** One expression as PostHog's AST; a 400 otherwise. */
export const parseExpr = (text: string, attr: string | null = null): HogNode => parse('expr', text, attr)
