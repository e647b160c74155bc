// PostHog's HogQL AST (parser.ts) printed as ClickHouse SQL. Everything the caller wrote reaches the SQL only
// as a bound parameter or as SQL the printer chose: table and column names come from schema.ts, every alias,
// CTE and lambda argument is renamed to a name of the printer's own (`__t0`, `__c0`, `__l0`), functions come
// from the allow-list (functions.ts), and every table, wherever it is read (FROM, JOIN, subqueries, CTEs,
// IN (SELECT …), UNION), is printed as its own SQL confined to the caller's project (schema.ts). A name that is
// not a table, a column, an alias in scope or a lambda argument is a 400 naming it and where it is; so is
// every construct the printer does not print. A CTE or alias named like a table reads what it names (the
// CTE, itself printed confined), never another project's rows.
import type { SqlParams } from '../../platform/clickhouse/params'
import type { HiddenPersons } from '../../platform/http/hidden-persons'
import { wrenError, WrenError } from '../../platform/errors'
import { aggregateSpec, PARAMETRIC } from './functions'
import { hogqlError, type HogNode } from './parser'
import { TABLE_NAMES, TABLES, tzOf, type Kind, type Printed, type TableContext, type TableDef } from './schema'
import { toHogql } from './text'

export type { Printed, Kind }

/** A source of columns in a SELECT's scope: a table, a subquery or a CTE, under its internal alias. */
interface Source {
  alias: string
  /** HogQL column → [SQL column, kind]. */
  columns: Map<string, [string, Kind]>
  /** Column names in `*` order. */
  star: string[]
  table?: TableDef
}

/** Names visible in one SELECT: its sources by the caller's name, its aliases, its CTEs (inherited). */
interface Scope {
  parent?: Scope
  sources: Map<string, Source>
  order: Source[]
  aliases: Map<string, Printed>
  ctes: Map<string, { sql: string; columns: string[]; kinds: Kind[] }>
  lambdas: Map<string, string>
  windows: Map<string, string>
  /** Expression mode: the caller's row, whose fields an expression reads bare. */
  row?: RowScope
}

/** The row an expression reads in expression mode (a filter, breakdown or math over events or persons). */
export interface RowScope {
  /** A field of the row by its chain, a message of why not, or undefined for an unknown name. */
  field(chain: string[]): Printed | string | undefined
}

/** What `{filters}`, `{variables.x}` and `{name}` placeholders print as. */
export type PlaceholderPrinter = (chain: string[], scope: { singleTable: string | null }) => Printed

export interface PrintOptions {
  params: SqlParams
  /** The text parsed (for positions in messages). */
  text: string
  attr: string | null
  /** The project every table is confined to; absent in expression mode without tables (no subqueries). */
  team?: number
  timezone?: string
  personOverrides?: boolean
  /** Persons the key asking may not see (platform/http/hidden-persons.ts): left out of every table. */
  hidden?: HiddenPersons | null
  placeholders?: PlaceholderPrinter
}

export interface PrintedQuery {
  sql: string
  /** The result's column names as PostHog names them (alias, field name, or the expression's HogQL). */
  columns: string[]
  /** Whether any table read `session.<field>` (the query then needs SESSION_JOIN_SETTINGS on a cluster). */
  sessions: boolean
}

/** A plain name of a column the printer chose (schema.ts): quoted when it has a `$`. */
const quote = (name: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `\`${name.replace(/[`\\]/g, '')}\``)
const MAX_SAFE = Number.MAX_SAFE_INTEGER
const COMPARE_OPS: Record<string, string> = { '==': '=', '!=': '!=', '<': '<', '<=': '<=', '>': '>', '>=': '>=' }
const JOIN_TYPE =
  /^(GLOBAL |LOCAL )?((ANY|ALL|ASOF|SEMI|ANTI) )?((LEFT|RIGHT|FULL|INNER|CROSS)( OUTER)?( (ANY|ALL|ASOF|SEMI|ANTI))? )?JOIN$/
const BARE_JOINS = new Set([
  'JOIN',
  'INNER JOIN',
  'CROSS JOIN',
  'LEFT JOIN',
  'LEFT OUTER JOIN',
  'RIGHT JOIN',
  'RIGHT OUTER JOIN',
  'FULL JOIN',
  'FULL OUTER JOIN',
])

class Printer {
  private tables = 0
  private names = 0
  private readonly ctx: TableContext | null
  /** Whether the query reads `session.<field>` (decided before printing: the events table's SQL depends on it). */
  readonly sessions: boolean

  constructor(
    private readonly opts: PrintOptions,
    root: HogNode,
    private readonly filter = false,
  ) {
    this.sessions = readsSessions(root)
    this.ctx =
      opts.team === undefined
        ? null
        : {
            params: opts.params,
            team: opts.params.add('Int64', opts.team),
            tz: opts.params.add('String', opts.timezone || 'UTC'),
            personOverrides: opts.personOverrides ?? false,
            sessions: this.sessions,
            hidden: opts.hidden ?? null,
          }
  }

  fail(why: string, node?: HogNode): WrenError {
    return hogqlError(this.opts.text, why, node?.start?.offset, this.opts.attr)
  }

  private name(prefix: string): string {
    return `__${prefix}${this.names++}`
  }

  // Queries.

  /** A SELECT or a set of them; `limit`: the top level's LIMIT rules (PostHog's, §6.10). */
  query(
    node: HogNode,
    parent: Scope | undefined,
    limit?: (user: HogNode | undefined) => string,
  ): { sql: string; columns: string[]; kinds: Kind[] } {
    if (node.node === 'SelectSetQuery') {
      const first = this.query(node.initial_select_query, parent)
      let sql = first.sql
      for (const next of node.subsequent_select_queries ?? []) {
        const op = String(next.set_operator)
        if (!/^(UNION ALL|UNION DISTINCT|INTERSECT|INTERSECT DISTINCT|EXCEPT|EXCEPT DISTINCT)$/.test(op))
          throw this.fail(`'${op}' is not a set operator HogQL takes (UNION ALL, UNION DISTINCT, INTERSECT, EXCEPT)`, next)
        const printed = this.query(next.select_query, parent)
        if (printed.columns.length !== first.columns.length)
          throw this.fail(`the queries of a ${op} select ${first.columns.length} and ${printed.columns.length} columns`, next)
        sql += `\n${op}\n${printed.sql}`
      }
      if (!limit) return { sql: `(${sql})`, columns: first.columns, kinds: first.kinds }
      const cols = first.columns.map((_, i) => `__c${i}`)
      return { sql: `SELECT ${cols.join(', ')} FROM (${sql}) ${limit(undefined)}`, columns: first.columns, kinds: first.kinds }
    }
    if (node.node !== 'SelectQuery') throw this.fail(`expected a SELECT, found ${node.node}`, node)
    return this.select(node, parent, limit)
  }

  private select(node: HogNode, parent: Scope | undefined, limit?: (user: HogNode | undefined) => string) {
    const scope: Scope = {
      // A subquery of an expression reads its own tables, never the row around it (no correlated reads).
      parent: parent?.row ? undefined : parent,
      sources: new Map(),
      order: [],
      aliases: new Map(),
      ctes: new Map(parent?.ctes ?? []),
      lambdas: new Map(parent?.lambdas ?? []),
      windows: new Map(),
    }
    const withs: string[] = []
    for (const cte of node.ctes ?? []) {
      if (cte.cte_type === 'column') {
        const value = this.expr(cte.expr, scope)
        const alias = this.name('a')
        withs.push(`${value.sql} AS ${alias}`)
        scope.aliases.set(cte.name, { ...value, sql: alias })
      } else {
        if (cte.columns?.length) throw this.fail(`column lists on a CTE (${cte.name}) are not supported`, cte)
        const printed = this.query(cte.expr, scope)
        scope.ctes.set(cte.name, { sql: printed.sql, columns: printed.columns, kinds: printed.kinds })
      }
    }
    for (const [name, w] of Object.entries(node.window_exprs ?? {})) scope.windows.set(name, this.name('w'))
    const from = node.select_from ? this.from(node.select_from, scope) : ''
    const arrayJoin = this.arrayJoin(node, scope)
    // Select items: `*` expands to the sources' columns; each item gets a name of the printer's own.
    const items: string[] = []
    const columns: string[] = []
    const kinds: Kind[] = []
    const push = (p: Printed, name: string) => {
      const internal = `__c${columns.length}`
      items.push(`${p.sql} AS ${internal}`)
      columns.push(name)
      kinds.push(p.kind)
    }
    for (const item of node.select ?? []) {
      if (item.node === 'Field' && item.chain[item.chain.length - 1] === '*') {
        const sources = item.chain.length === 1 ? scope.order : [this.source(item.chain[0], scope, item)]
        if (item.chain.length > 2) throw this.fail(`'${item.chain.join('.')}' is not a field`, item)
        if (sources.length === 0) throw this.fail('SELECT * needs a FROM', item)
        for (const s of sources) for (const col of s.star) push(this.column(s, [col]) as Printed, col)
        continue
      }
      if (item.node === 'Alias') {
        const value = this.expr(item.expr, scope)
        push(value, item.alias)
        scope.aliases.set(item.alias, { ...value, sql: `__c${columns.length - 1}` })
        continue
      }
      push(this.expr(item, scope), item.node === 'Field' ? String(item.chain[item.chain.length - 1]) : toHogql(item))
    }
    const parts = [`SELECT ${node.distinct ? 'DISTINCT ' : ''}${items.join(', ')}`]
    if (from) parts.push(`FROM ${from}`)
    if (arrayJoin) parts.push(arrayJoin)
    const condition = (clause: string, e: HogNode | undefined) => {
      if (!e) return
      const p = this.expr(e, scope)
      parts.push(`${clause} ${p.sql}`)
    }
    condition('PREWHERE', node.prewhere)
    condition('WHERE', node.where)
    if (node.group_by?.length) parts.push(`GROUP BY ${node.group_by.map((g: HogNode) => this.expr(g, scope).sql).join(', ')}`)
    condition('HAVING', node.having)
    if (Object.keys(node.window_exprs ?? {}).length)
      parts.push(
        `WINDOW ${Object.entries(node.window_exprs as Record<string, HogNode>)
          .map(([name, w]) => `${scope.windows.get(name)} AS (${this.window(w, scope)})`)
          .join(', ')}`,
      )
    condition('QUALIFY', node.qualify)
    if (node.order_by?.length) parts.push(`ORDER BY ${this.orderBy(node.order_by, scope)}`)
    if (node.limit_by) {
      const by = node.limit_by
      parts.push(
        `LIMIT ${this.count(by.n)}${by.offset_value ? ` OFFSET ${this.count(by.offset_value)}` : ''} BY ${by.exprs.map((e: HogNode) => this.expr(e, scope).sql).join(', ')}`,
      )
    }
    if (limit) parts.push(limit(node))
    else if (node.limit) parts.push(`LIMIT ${this.count(node.limit)}`)
    if (node.offset) parts.push(`OFFSET ${this.count(node.offset)}`)
    if (node.limit_with_ties) throw this.fail('LIMIT … WITH TIES is not supported', node)
    const sql = `${withs.length ? `WITH ${withs.join(', ')} ` : ''}${parts.join('\n')}`
    return { sql, columns, kinds }
  }

  /** A non-negative integer constant (LIMIT, OFFSET, LIMIT BY), printed as itself. */
  count(node: HogNode): string {
    if (node?.node !== 'Constant' || !Number.isSafeInteger(node.value) || node.value < 0)
      throw this.fail('LIMIT and OFFSET take a whole number', node)
    return String(node.value)
  }

  private orderBy(list: HogNode[], scope: Scope): string {
    return list
      .map((o) => {
        if (o.node !== 'OrderExpr') return this.expr(o, scope).sql
        return `${this.expr(o.expr, scope).sql} ${o.order === 'DESC' ? 'DESC' : 'ASC'}`
      })
      .join(', ')
  }

  private arrayJoin(node: HogNode, scope: Scope): string {
    if (!node.array_join_op) return ''
    const op = String(node.array_join_op)
    if (!/^(LEFT )?ARRAY JOIN$/.test(op)) throw this.fail(`'${op}' is not supported`, node)
    const items = (node.array_join_list ?? []).map((item: HogNode) => {
      if (item.node !== 'Alias') throw this.fail('ARRAY JOIN needs an alias for each array (ARRAY JOIN arr AS x)', item)
      const value = this.expr(item.expr, scope)
      const alias = this.name('a')
      scope.aliases.set(item.alias, { sql: alias, kind: 'any' })
      return `${value.sql} AS ${alias}`
    })
    return `${op} ${items.join(', ')}`
  }

  /** FROM and its JOINs: every table printed as its own confined SQL, under a name of the printer's own. */
  private from(join: HogNode, scope: Scope): string {
    let sql = ''
    for (let j: HogNode | null = join; j; j = j.next_join) {
      if (j.sample) throw this.fail('SAMPLE is not supported', j)
      const source = this.table(j, scope)
      const name = j.alias ?? (j.table.node === 'Field' ? j.table.chain.join('.') : null)
      if (name !== null) {
        if (scope.sources.has(name)) throw this.fail(`the name '${name}' is given to two tables of one FROM`, j)
        scope.sources.set(name, source)
      }
      scope.order.push(source)
      if (j === join) {
        sql = sqlOfSource(source, this.sourceSql.get(source)!)
        continue
      }
      const type = String(j.join_type ?? 'JOIN')
        .replace(/\s+/g, ' ')
        .trim()
      if (!JOIN_TYPE.test(type) && !BARE_JOINS.has(type)) throw this.fail(`'${type}' is not a join HogQL takes`, j)
      let on = ''
      if (j.constraint) {
        if (j.constraint.constraint_type !== 'ON') throw this.fail('JOIN … USING is not supported: use JOIN … ON', j.constraint)
        on = ` ON ${this.expr(j.constraint.expr, scope).sql}`
      } else if (!/CROSS/.test(type)) throw this.fail(`${type} needs ON`, j)
      sql += `\n${type} ${sqlOfSource(source, this.sourceSql.get(source)!)}${on}`
    }
    return sql
  }

  private readonly sourceSql = new Map<Source, string>()

  /** The source of one JoinExpr: a table of schema.ts, a CTE in scope, a subquery, or numbers(n). */
  private table(j: HogNode, scope: Scope): Source {
    const alias = `__t${this.tables++}`
    const t = j.table
    if (t.node === 'SelectQuery' || t.node === 'SelectSetQuery') {
      const printed = this.query(t, scope)
      return this.derived(alias, printed.sql, printed.columns, printed.kinds)
    }
    if (t.node === 'Placeholder') throw this.fail('a placeholder cannot name a table', t)
    if (t.node !== 'Field') throw this.fail(`${t.node} cannot be read as a table`, t)
    const name = t.chain.join('.')
    if (j.table_args) {
      if (name !== 'numbers')
        throw this.fail(`Unknown table function '${name}': HogQL reads only its tables (${TABLE_NAMES.join(', ')})`, t.start ? t : j)
      const args = (j.table_args as HogNode[]).map((a) => this.count(a))
      if (args.length < 1 || args.length > 2) throw this.fail('numbers takes one or two arguments', t)
      const source: Source = { alias, columns: new Map([['number', ['number', 'number']]]), star: ['number'] }
      this.sourceSql.set(source, `numbers(${args.join(', ')})`)
      return source
    }
    if (t.chain.length === 1) {
      const cte = findCte(scope, name)
      if (cte) return this.derived(alias, cte.sql.startsWith('(') ? cte.sql.slice(1, -1) : cte.sql, cte.columns, cte.kinds)
    }
    if (t.chain.length !== 1 || !Object.hasOwn(TABLES, name))
      throw this.fail(`Unknown table '${name}': HogQL reads ${TABLE_NAMES.join(', ')}`, t)
    if (!this.ctx) throw this.fail(`a table ('${name}') cannot be read here`, t)
    const def = TABLES[name]
    const columns = new Map<string, [string, Kind]>()
    for (const [hog, sql, kind] of [...def.columns, ...(def.hidden ?? [])]) columns.set(hog, [sql, kind])
    const source: Source = { alias, columns, star: def.columns.map(([c]) => c), table: def }
    this.sourceSql.set(source, def.sql(this.ctx))
    return source
  }

  private derived(alias: string, sql: string, names: string[], kinds: Kind[]): Source {
    const columns = new Map<string, [string, Kind]>()
    names.forEach((n, i) => {
      if (!columns.has(n)) columns.set(n, [`__c${i}`, kinds[i]])
    })
    const source: Source = { alias, columns, star: [...columns.keys()] }
    this.sourceSql.set(source, sql)
    return source
  }

  private source(name: string, scope: Scope, node: HogNode): Source {
    const s = scope.sources.get(name)
    if (!s) throw this.fail(`Unknown table '${name}' in this SELECT`, node)
    return s
  }

  // Expressions.

  expr(node: HogNode, scope: Scope | null): Printed {
    switch (node.node) {
      case 'Constant':
        return this.constant(node)
      case 'Field':
        return this.field(node, scope)
      case 'Alias': {
        const value = this.expr(node.expr, scope)
        if (!scope) return value
        const alias = this.name('a')
        scope.aliases.set(node.alias, { ...value, sql: alias })
        return { ...value, sql: `(${value.sql} AS ${alias})` }
      }
      case 'ArithmeticOperation': {
        const l = this.expr(node.left, scope)
        const r = this.expr(node.right, scope)
        if (!['+', '-', '*', '/', '%'].includes(node.op)) throw this.fail(`'${node.op}' is not an operator`, node)
        // Numbers (and text cast to them) make a number; a datetime and an interval, a datetime.
        const numeric = (p: Printed) => p.kind === 'number' || p.kind === 'string' || p.property
        const kind: Kind = numeric(l) && numeric(r) ? 'number' : l.kind === 'datetime' || r.kind === 'datetime' ? 'datetime' : 'any'
        return { sql: `(${num(l)} ${node.op} ${num(r)})`, kind, aggregate: l.aggregate || r.aggregate }
      }
      case 'And':
      case 'Or': {
        const parts = node.exprs.map((e: HogNode) => this.expr(e, scope))
        return {
          sql: `(${parts.map((p: Printed) => p.sql).join(node.node === 'And' ? ' AND ' : ' OR ')})`,
          kind: 'bool',
          aggregate: parts.some((p: Printed) => p.aggregate),
        }
      }
      case 'Not': {
        const inner = this.expr(node.expr, scope)
        return { sql: `(NOT ${inner.sql})`, kind: 'bool', aggregate: inner.aggregate }
      }
      case 'CompareOperation':
        return this.compare(node, scope)
      case 'BetweenExpr': {
        const [x, lo, hi] = [node.expr, node.low, node.high].map((e) => this.expr(e, scope))
        const numeric = lo.kind === 'number' || hi.kind === 'number'
        const v = numeric ? num(x) : lo.kind === 'string' || hi.kind === 'string' ? x.sql : (x.instant ?? x.sql)
        return { sql: `ifNull(${v} ${node.negated ? 'NOT ' : ''}BETWEEN ${lo.sql} AND ${hi.sql}, 0)`, kind: 'bool', aggregate: x.aggregate }
      }
      case 'Call':
        return this.call(node, scope)
      case 'WindowFunction':
        return this.windowFunction(node, scope)
      case 'ArrayAccess': {
        const chain = propertyChain(node)
        if (chain) return this.field({ ...node, node: 'Field', chain }, scope)
        const a = this.expr(node.array, scope)
        const i = this.expr(node.property, scope)
        return { sql: `${a.sql}[${i.sql}]`, kind: 'any', aggregate: a.aggregate }
      }
      case 'TupleAccess': {
        const t = this.expr(node.tuple, scope)
        if (!Number.isSafeInteger(node.index)) throw this.fail('a tuple index is a whole number', node)
        return { sql: `tupleElement(${t.sql}, ${node.index})`, kind: 'any', aggregate: t.aggregate }
      }
      case 'Array':
      case 'Tuple': {
        const parts = (node.exprs ?? []).map((e: HogNode) => this.expr(e, scope))
        const inner = parts.map((p: Printed) => p.sql).join(', ')
        return {
          sql: node.node === 'Array' ? `[${inner}]` : `tuple(${inner})`,
          kind: 'any',
          aggregate: parts.some((p: Printed) => p.aggregate),
        }
      }
      case 'Placeholder': {
        const chain = node.expr?.node === 'Field' ? (node.expr.chain as string[]) : null
        if (!chain || !this.opts.placeholders) throw this.fail(`the placeholder {${toHogql(node.expr)}} is not available here`, node)
        const single =
          scope && scope.order.length === 1 && scope.order[0].table === TABLES.events
            ? 'events'
            : scope?.order.length === 1 && scope.order[0].table === TABLES.sessions
              ? 'sessions'
              : null
        try {
          return this.opts.placeholders(chain, { singleTable: single })
        } catch (err) {
          if (err instanceof WrenError && err.code === 'invalid_hogql' && !/\(line \d+/.test(err.message))
            throw this.fail(err.message.replace(/\.$/, ''), node)
          throw err
        }
      }
      case 'SelectQuery':
      case 'SelectSetQuery': {
        if (!this.ctx) throw this.fail('a subquery is not available in an expression here', node)
        const printed = this.query(node, scope ?? undefined)
        return { sql: printed.sql.startsWith('(') ? printed.sql : `(${printed.sql})`, kind: 'any' }
      }
      case 'Lambda':
        throw this.fail('a lambda (x -> …) is only an argument of an array function', node)
      default:
        throw this.fail(`${node.node} is not supported`, node)
    }
  }

  private constant(node: HogNode): Printed {
    const v = node.value
    const p = this.opts.params
    if (v === null || v === undefined) return { sql: 'NULL', kind: 'any' }
    // A number past what a double holds exactly comes as its text.
    if (node.value_type === 'number' && typeof v === 'string') {
      const n = Number(v)
      if (!Number.isFinite(n) || Math.abs(n) > MAX_SAFE)
        throw this.fail(`the number ${v} is past 2^53 (numbers are exact up to ${MAX_SAFE})`, node)
      return { sql: p.add('Float64', n), kind: 'number' }
    }
    if (typeof v === 'boolean') return { sql: v ? 'true' : 'false', kind: 'bool' }
    if (typeof v === 'number') {
      if (!Number.isFinite(v) || Math.abs(v) > MAX_SAFE)
        throw this.fail(
          `the number ${this.opts.text.slice(node.start?.offset ?? 0, node.end?.offset ?? 0) || v} is past 2^53 (numbers are exact up to ${MAX_SAFE})`,
          node,
        )
      return {
        sql:
          Number.isInteger(v) && !/[.eE]/.test(this.opts.text.slice(node.start?.offset ?? 0, node.end?.offset ?? 0))
            ? p.add('Int64', v)
            : p.add('Float64', v),
        kind: 'number',
      }
    }
    if (typeof v === 'string') return { sql: p.add('String', v), kind: 'string' }
    throw this.fail('a constant of an unknown type', node)
  }

  private field(node: HogNode, scope: Scope | null): Printed {
    const chain = node.chain as Array<string | number>
    if (chain.some((c) => typeof c !== 'string')) throw this.fail(`'${chain.join('.')}' is not a field`, node)
    const names = chain as string[]
    const [head, ...rest] = names
    const bad = (why: string) => this.fail(why, node)
    const result = (r: Printed | string | undefined): Printed => {
      if (typeof r === 'string') throw bad(r)
      if (!r) throw bad(`'${names.join('.')}' is not a field`)
      return r
    }
    if (head === '*') throw bad('* is only a SELECT item or count(*)')
    // Lambda arguments, then names of the SELECT and the SELECTs around it, innermost first (in expression
    // mode: the caller's row).
    if (scope?.lambdas.has(head) && rest.length === 0) return { sql: scope.lambdas.get(head)!, kind: 'any' }
    for (let s: Scope | undefined = scope ?? undefined; s; s = s.parent) {
      if (s.row) return result(s.row.field(names))
      if (s.sources.has(head) && rest.length > 0) return result(this.column(s.sources.get(head)!, rest))
      if (s.aliases.has(head)) {
        const alias = s.aliases.get(head)!
        if (rest.length === 0) return alias
        return {
          sql: `JSONExtract(${alias.sql}, ${rest.map((k) => this.opts.params.add('String', k)).join(', ')}, 'Nullable(String)')`,
          kind: 'any',
          property: true,
        }
      }
      const owners = s.order.filter((src) => src.columns.has(head) || (src.table?.chain && this.column(src, names, true)))
      if (owners.length > 0) return result(this.column(owners[0], names))
    }
    throw bad(`Unable to resolve field: ${names.join('.')}`)
  }

  /** A chain read on one source: a column, or a table's own chains (properties.x, person.properties.x). */
  private column(src: Source, chain: string[], probe = false): Printed | string | undefined {
    const col = (name: string) => `${src.alias}.${quote(name)}`
    if (chain.length > 1 && src.table?.chain) {
      const r = src.table.chain(col, chain, this.ctx!)
      if (r !== undefined) return r
    }
    const c = src.columns.get(chain[0])
    if (!c) {
      if (probe) return undefined
      if (src.table?.chain && chain.length === 1) {
        const r = src.table.chain(col, chain, this.ctx!)
        if (r !== undefined) return r
      }
      return `'${chain.join('.')}' is not a field of this table (it has ${src.star.join(', ')})`
    }
    if (chain.length === 1) {
      // A table's stored instants read in the project's timezone; compared with an instant, as stored.
      if (c[1] === 'datetime' && src.table && this.ctx) return { sql: tzOf(col(c[0]), this.ctx), kind: 'datetime', instant: col(c[0]) }
      return { sql: col(c[0]), kind: c[1] }
    }
    return {
      sql: `JSONExtract(${col(c[0])}, ${chain
        .slice(1)
        .map((k) => this.opts.params.add('String', k))
        .join(', ')}, 'Nullable(String)')`,
      kind: 'any',
      property: true,
    }
  }

  private compare(node: HogNode, scope: Scope | null): Printed {
    const op = String(node.op)
    if (op === 'in cohort' || op === 'not in cohort')
      throw this.fail('IN COHORT is not supported: filter by the cohort in the query’s filters', node)
    const l = this.expr(node.left, scope)
    const aggregate = l.aggregate
    if (op === 'in' || op === 'not in') {
      const right = node.right
      let r: string
      if (right.node === 'Tuple' || right.node === 'Array') {
        const items = (right.exprs ?? []).map((e: HogNode) => this.expr(e, scope).sql)
        r = right.node === 'Tuple' ? `(${items.join(', ')})` : `[${items.join(', ')}]`
        if (items.length === 0) return { sql: op === 'in' ? '0' : '1', kind: 'bool' }
      } else r = this.expr(right, scope).sql
      if (!/^[([]/.test(r)) r = `(${r})`
      return { sql: `ifNull(${l.sql} ${op === 'in' ? 'IN' : 'NOT IN'} ${r}, 0)`, kind: 'bool', aggregate }
    }
    const r = this.expr(node.right, scope)
    const agg = aggregate || r.aggregate
    if (node.is_null_comparison_style || (node.right?.node === 'Constant' && node.right.value === null)) {
      if (op === '==') return { sql: `(${l.sql} IS NULL)`, kind: 'bool', aggregate: agg }
      if (op === '!=') return { sql: `(${l.sql} IS NOT NULL)`, kind: 'bool', aggregate: agg }
    }
    if (Object.hasOwn(COMPARE_OPS, op)) {
      const numeric = l.kind === 'number' || r.kind === 'number'
      const [a, b] = numeric ? [num(l), num(r)] : [instant(l, r), instant(r, l)]
      return { sql: `ifNull(${a} ${COMPARE_OPS[op]} ${b}, 0)`, kind: 'bool', aggregate: agg }
    }
    const like: Record<string, string> = { like: 'like', ilike: 'ilike', 'not like': 'notLike', 'not ilike': 'notILike' }
    if (Object.hasOwn(like, op))
      return { sql: `ifNull(${like[op]}(${l.sql}, ${r.sql}), ${op.startsWith('not') ? 1 : 0})`, kind: 'bool', aggregate: agg }
    const regex: Record<string, [boolean, boolean]> = {
      '=~': [false, false],
      '!~': [true, false],
      '=~*': [false, true],
      '!~*': [true, true],
    }
    if (Object.hasOwn(regex, op)) {
      const [negated, insensitive] = regex[op]
      const pattern = insensitive ? `concat('(?i)', ${r.sql})` : r.sql
      return { sql: `ifNull(${negated ? 'NOT ' : ''}match(${l.sql}, ${pattern}), ${negated ? 1 : 0})`, kind: 'bool', aggregate: agg }
    }
    throw this.fail(`'${op}' is not a comparison HogQL takes`, node)
  }

  private call(node: HogNode, scope: Scope | null): Printed {
    const name = String(node.name)
    const args: HogNode[] = node.args ?? []
    if (node.filter_expr) throw this.fail(`${name}(…) FILTER (WHERE …) is not supported: use ${name}If`, node)
    if (node.order_by?.length) throw this.fail(`ORDER BY inside ${name}(…) is not supported`, node)
    if (name === 'NOT' || name === 'not') {
      if (args.length !== 1) throw this.fail('NOT takes one argument', node)
      const inner = this.expr(args[0], scope)
      return { sql: `(NOT ${inner.sql})`, kind: 'bool', aggregate: inner.aggregate }
    }
    if (name === '_caseWithExpression') {
      const parts = args.map((a) => this.expr(a, scope).sql)
      if (parts.length < 4 || parts.length % 2 !== 0) throw this.fail('CASE x WHEN … THEN … ELSE … END is malformed', node)
      const [subject, ...rest] = parts
      const fallback = rest.pop()
      const whens = []
      for (let i = 0; i < rest.length; i += 2) whens.push(`WHEN ${rest[i]} THEN ${rest[i + 1]}`)
      return { sql: `(CASE ${subject} ${whens.join(' ')} ELSE ${fallback} END)`, kind: 'any' }
    }
    const spec = aggregateSpec(name)
    if (!spec) throw this.fail(`function '${name}' is not available`, node)
    if (spec.aggregate && this.filter) throw this.fail(`'${name}' aggregates rows, and a filter is a condition on one row`, node)
    if (args.length < spec.min || args.length > spec.max) {
      const range = spec.min === spec.max ? `${spec.min}` : spec.max >= 99 ? `at least ${spec.min}` : `${spec.min}-${spec.max}`
      throw this.fail(`${name} takes ${range} argument${range === '1' ? '' : 's'}, found ${args.length}`, node)
    }
    const printed = args.map((a, i) => {
      if (a.node === 'Lambda') return this.lambda(a, scope)
      if (a.node === 'Field' && a.chain.length === 1 && a.chain[0] === '*' && name.toLowerCase() === 'count')
        return { sql: '', kind: 'any' as Kind }
      const p = this.expr(a, scope)
      // PostHog's Numeric properties: an aggregate of numbers reads a property as a number (not an -If's condition).
      const condition = spec.clickhouse.endsWith('If') && i === args.length - 1
      return spec.numeric && !condition ? { ...p, sql: num(p) } : p
    })
    if (printed.some((p) => p.aggregate) && spec.aggregate) throw this.fail(`'${name}' cannot aggregate an aggregate`, node)
    let params = ''
    if (node.params) {
      if (!PARAMETRIC.has(name)) throw this.fail(`'${name}' takes no parameters`, node)
      params = `(${(node.params as HogNode[]).map((p) => this.number(p)).join(', ')})`
    }
    const list = printed.map((p) => p.sql).filter((s, i) => s !== '' || i > 0)
    const sql =
      spec.clickhouse === 'toInt64OrNull' || spec.clickhouse === 'toFloat64OrNull'
        ? `${spec.clickhouse}(toString(${list[0]}))`
        : `${spec.clickhouse}${params}(${node.distinct ? 'DISTINCT ' : ''}${list.join(', ')})`
    const kind: Kind =
      spec.returns ??
      (['if', 'multiIf', 'coalesce', 'ifNull', 'nullIf', 'greatest', 'least'].includes(spec.clickhouse)
        ? mergeKind(printed.slice(spec.clickhouse === 'if' || spec.clickhouse === 'multiIf' ? 1 : 0))
        : 'any')
    return { sql, kind, aggregate: spec.aggregate || printed.some((p) => p.aggregate) }
  }

  /** A number written in the query (a parametric aggregate's level), printed as itself. */
  private number(node: HogNode): string {
    if (node?.node !== 'Constant' || typeof node.value !== 'number' || !Number.isFinite(node.value))
      throw this.fail('a parameter here is a number', node)
    return String(node.value)
  }

  private lambda(node: HogNode, scope: Scope | null): Printed {
    const inner: Scope = scope ? { ...scope, lambdas: new Map(scope.lambdas) } : emptyScope()
    const args = (node.args as string[]).map((a) => {
      const internal = this.name('l')
      inner.lambdas.set(a, internal)
      return internal
    })
    const body = this.expr(node.expr, inner)
    return { sql: `(${args.join(', ')}) -> ${body.sql}`, kind: 'any' }
  }

  private windowFunction(node: HogNode, scope: Scope | null): Printed {
    if (!scope) throw this.fail('a window function is not available in an expression here', node)
    const spec = aggregateSpec(String(node.name))
    if (!spec) throw this.fail(`function '${node.name}' is not available`, node)
    const args = (node.exprs ?? []).map((e: HogNode) => this.expr(e, scope).sql)
    const params = node.args?.length ? `(${(node.args as HogNode[]).map((p) => this.number(p)).join(', ')})` : ''
    const over = node.over_identifier
      ? (scope.windows.get(node.over_identifier) ??
        (() => {
          throw this.fail(`Unknown window '${node.over_identifier}'`, node)
        })())
      : `(${this.window(node.over_expr ?? {}, scope)})`
    return { sql: `${spec.clickhouse}${params}(${args.join(', ')}) OVER ${over}`, kind: spec.returns ?? 'any' }
  }

  private window(w: HogNode, scope: Scope): string {
    const parts: string[] = []
    if (w.partition_by?.length) parts.push(`PARTITION BY ${w.partition_by.map((e: HogNode) => this.expr(e, scope).sql).join(', ')}`)
    if (w.order_by?.length) parts.push(`ORDER BY ${this.orderBy(w.order_by, scope)}`)
    if (w.frame_method) {
      if (!['ROWS', 'RANGE'].includes(w.frame_method)) throw this.fail(`'${w.frame_method}' is not a window frame`, w)
      const bound = (f: HogNode | null): string => {
        if (!f) return 'CURRENT ROW'
        if (f.frame_type === 'CURRENT ROW') return 'CURRENT ROW'
        if (!['PRECEDING', 'FOLLOWING'].includes(f.frame_type)) throw this.fail('a window frame is PRECEDING, FOLLOWING or CURRENT ROW', w)
        const v = f.frame_value
        if (v !== null && v !== undefined && !Number.isSafeInteger(v)) throw this.fail('a window frame is a whole number of rows', w)
        return `${v === null || v === undefined ? 'UNBOUNDED' : v} ${f.frame_type}`
      }
      parts.push(
        w.frame_end
          ? `${w.frame_method} BETWEEN ${bound(w.frame_start)} AND ${bound(w.frame_end)}`
          : `${w.frame_method} ${bound(w.frame_start)}`,
      )
    }
    return parts.join(' ')
  }
}

function emptyScope(row?: RowScope): Scope {
  return { sources: new Map(), order: [], aliases: new Map(), ctes: new Map(), lambdas: new Map(), windows: new Map(), row }
}

function sqlOfSource(source: Source, sql: string): string {
  return sql.startsWith('numbers(') ? `${sql} AS ${source.alias}` : `(${sql}) AS ${source.alias}`
}

function findCte(scope: Scope | undefined, name: string) {
  for (let s = scope; s; s = s.parent) if (s.ctes.has(name)) return s.ctes.get(name)
  return undefined
}

/** `properties['a']['b']` as the chain properties.a.b (PostHog reads both alike); null for other array reads. */
function propertyChain(node: HogNode): string[] | null {
  const keys: string[] = []
  let n = node
  while (n.node === 'ArrayAccess') {
    if (n.property?.node !== 'Constant' || typeof n.property.value !== 'string') return null
    keys.unshift(n.property.value)
    n = n.array
  }
  if (n.node !== 'Field') return null
  const chain = n.chain as string[]
  return chain.includes('properties') || (chain.length === 1 && chain[0] === 'properties') ? [...chain, ...keys] : null
}

/**
 * A datetime column as stored where the other side of its comparison is an instant too (not text, which
 * ClickHouse would read in the column's timezone): the same answer, and the table's keys prune the read.
 */
function instant(p: Printed, other: Printed): string {
  return p.instant && other.kind !== 'string' && !other.property ? p.instant : p.sql
}

/** A value read as a number: a property (text) or a string is cast (NULL when it is not one). */
export function num(p: Printed): string {
  return p.property || p.kind === 'string' ? `toFloat64OrNull(${p.sql})` : p.sql
}

function mergeKind(parts: Printed[]): Kind {
  const kinds = new Set(parts.map((p) => (p.property ? 'any' : p.kind)))
  return kinds.size === 1 ? [...kinds][0] : 'any'
}

/** Whether any field chain reads `session.<field>` (the events table then joins its sessions). */
function readsSessions(node: unknown): boolean {
  if (!node || typeof node !== 'object') return false
  if (Array.isArray(node)) return node.some(readsSessions)
  const n = node as HogNode
  if (n.node === 'Field' && Array.isArray(n.chain) && n.chain.length > 1 && n.chain.includes('session')) return true
  return Object.entries(n).some(([k, v]) => k !== 'start' && k !== 'end' && typeof v === 'object' && readsSessions(v))
}

/** A whole query printed: `limit` applies PostHog's top-level LIMIT rules. */
export function printQuery(ast: HogNode, opts: PrintOptions & { limit?: (user: HogNode | undefined) => string }): PrintedQuery {
  const printer = new Printer(opts, ast)
  const { sql, columns } = printer.query(ast, undefined, opts.limit)
  return { sql, columns, sessions: printer.sessions }
}

/** One expression over a row (expression mode: filters, breakdowns, math). */
export function printExpression(ast: HogNode, opts: PrintOptions, row: RowScope, filter: boolean): Printed {
  if (ast.node === 'Alias') ast = ast.expr
  return new Printer(opts, ast, filter).expr(ast, emptyScope(row))
}

/** The printer's own 400s, for callers that check a text without printing it. */
export function isHogqlError(err: unknown): boolean {
  return err instanceof WrenError && err.code === 'invalid_hogql'
}

export { wrenError }
