// A HogQL AST printed back as HogQL text: PostHog's column name of an unnamed expression (`count()`), and the
// `hogql` of a HogQLQuery's answer (the query as run, with its LIMIT).
import type { HogNode } from './parser'

const ident = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``)
const str = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
const list = (nodes: HogNode[] | undefined) => (nodes ?? []).map(toHogql).join(', ')

export function toHogql(n: HogNode | null | undefined): string {
  if (!n) return ''
  switch (n.node) {
    case 'Constant':
      return n.value === null ? 'NULL' : typeof n.value === 'string' ? str(n.value) : String(n.value)
    case 'Field':
      return (n.chain as Array<string | number>).map((c) => (c === '*' ? '*' : typeof c === 'number' ? String(c) : ident(c))).join('.')
    case 'Alias':
      return `${toHogql(n.expr)} AS ${ident(n.alias)}`
    case 'ArithmeticOperation':
      return n.op === '-' && n.left?.node === 'Constant' && n.left.value === 0 && n.left.start?.offset === n.start?.offset
        ? `-${toHogql(n.right)}`
        : `${toHogql(n.left)} ${n.op} ${toHogql(n.right)}`
    case 'CompareOperation':
      if (n.is_null_comparison_style) return `${toHogql(n.left)} IS ${n.op === '!=' ? 'NOT ' : ''}NULL`
      return `${toHogql(n.left)} ${/^[a-z ]+$/.test(n.op) ? n.op.toUpperCase() : n.op} ${toHogql(n.right)}`
    case 'And':
    case 'Or':
      return `(${(n.exprs as HogNode[]).map(toHogql).join(n.node === 'And' ? ' AND ' : ' OR ')})`
    case 'Not':
      return `NOT ${toHogql(n.expr)}`
    case 'BetweenExpr':
      return `${toHogql(n.expr)} ${n.negated ? 'NOT ' : ''}BETWEEN ${toHogql(n.low)} AND ${toHogql(n.high)}`
    case 'Call':
      return `${n.name}${n.params ? `(${list(n.params)})` : ''}(${n.distinct ? 'DISTINCT ' : ''}${list(n.args)})`
    case 'WindowFunction':
      return `${n.name}(${list(n.exprs)}) OVER ${n.over_identifier ? ident(n.over_identifier) : '(…)'}`
    case 'ArrayAccess':
      return `${toHogql(n.array)}[${toHogql(n.property)}]`
    case 'TupleAccess':
      return `${toHogql(n.tuple)}.${n.index}`
    case 'Array':
      return `[${list(n.exprs)}]`
    case 'Tuple':
      return `tuple(${list(n.exprs)})`
    case 'Lambda':
      return `(${(n.args as string[]).map(ident).join(', ')}) -> ${toHogql(n.expr)}`
    case 'Placeholder':
      return `{${toHogql(n.expr)}}`
    case 'OrderExpr':
      return `${toHogql(n.expr)} ${n.order}`
    case 'SelectQuery':
      return `(${selectText(n)})`
    case 'SelectSetQuery':
      return `(${setText(n)})`
    default:
      return n.node
  }
}

function joinText(j: HogNode): string {
  let out = ''
  for (let x: HogNode | null = j; x; x = x.next_join) {
    const table = x.table.node === 'Field' ? toHogql(x.table) : toHogql(x.table)
    const args = x.table_args ? `(${list(x.table_args)})` : ''
    const head = x === j ? '' : ` ${x.join_type ?? 'JOIN'} `
    const on = x.constraint ? ` ${x.constraint.constraint_type} ${toHogql(x.constraint.expr)}` : ''
    out += `${head}${table}${args}${x.alias ? ` AS ${ident(x.alias)}` : ''}${on}`
  }
  return out
}

/** A SELECT as HogQL text; `limit` replaces its LIMIT (the one it ran with). */
export function selectText(n: HogNode, limit?: number, offset?: number): string {
  const parts: string[] = []
  if (n.ctes?.length)
    parts.push(
      `WITH ${(n.ctes as HogNode[]).map((c) => (c.cte_type === 'column' ? `${toHogql(c.expr)} AS ${ident(c.name)}` : `${ident(c.name)} AS ${toHogql(c.expr)}`)).join(', ')}`,
    )
  parts.push(`SELECT ${n.distinct ? 'DISTINCT ' : ''}${list(n.select)}`)
  if (n.select_from) parts.push(`FROM ${joinText(n.select_from)}`)
  if (n.array_join_op) parts.push(`${n.array_join_op} ${list(n.array_join_list)}`)
  if (n.prewhere) parts.push(`PREWHERE ${toHogql(n.prewhere)}`)
  if (n.where) parts.push(`WHERE ${toHogql(n.where)}`)
  if (n.group_by?.length) parts.push(`GROUP BY ${list(n.group_by)}`)
  if (n.having) parts.push(`HAVING ${toHogql(n.having)}`)
  if (n.qualify) parts.push(`QUALIFY ${toHogql(n.qualify)}`)
  if (n.order_by?.length) parts.push(`ORDER BY ${list(n.order_by)}`)
  if (n.limit_by) parts.push(`LIMIT ${toHogql(n.limit_by.n)} BY ${list(n.limit_by.exprs)}`)
  const lim = limit ?? (n.limit ? Number(n.limit.value) : undefined)
  if (lim !== undefined) parts.push(`LIMIT ${lim}`)
  const off = offset ?? (n.offset ? Number(n.offset.value) : undefined)
  if (off) parts.push(`OFFSET ${off}`)
  return parts.join('\n')
}

export function setText(n: HogNode): string {
  if (n.node !== 'SelectSetQuery') return selectText(n)
  return [
    setText(n.initial_select_query),
    ...(n.subsequent_select_queries as HogNode[]).map((s) => `${s.set_operator} ${setText(s.select_query)}`),
  ].join('\n')
}
