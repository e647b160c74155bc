// Trend formulas such as `A + B` or `(A-B)/B*100`: arithmetic over series letters (A = the first series),
// parsed once and evaluated bucket by bucket. Division by zero gives 0, as in PostHog.
import { wrenError } from '../../../platform/errors'

type Node =
  | { kind: 'num'; value: number }
  | { kind: 'var'; index: number }
  | { kind: 'neg'; arg: Node }
  | { kind: 'bin'; op: string; left: Node; right: Node }

export interface Formula {
  text: string
  letters: number[]
  evaluate(values: number[]): number
}

export function parseFormula(text: string, seriesCount: number): Formula {
  const tokens = text.toLowerCase().match(/\d+(?:\.\d+)?|\.\d+|\*\*|[a-z]|[-+*/%^()]|\S/g) ?? []
  let pos = 0
  const letters = new Set<number>()
  const fail = (why: string) => wrenError('invalid_formula', `Formula '${text}' is not valid: ${why}.`, 'formula')
  const peek = () => tokens[pos]
  const expr = (): Node => {
    let left = term()
    while (peek() === '+' || peek() === '-') {
      const op = tokens[pos++]
      left = { kind: 'bin', op, left, right: term() }
    }
    return left
  }
  const term = (): Node => {
    let left = unary()
    while (peek() === '*' || peek() === '/' || peek() === '%') {
      const op = tokens[pos++]
      left = { kind: 'bin', op, left, right: unary() }
    }
    return left
  }
  const unary = (): Node => {
    if (peek() === '-') return (pos++, { kind: 'neg', arg: unary() })
    if (peek() === '+') return (pos++, unary())
    return power()
  }
  const power = (): Node => {
    const base = atom()
    if (peek() === '**' || peek() === '^') {
      pos++
      return { kind: 'bin', op: '**', left: base, right: unary() }
    }
    return base
  }
  const atom = (): Node => {
    const t = tokens[pos++]
    if (t === undefined) throw fail('it ends too early')
    if (t === '(') {
      const inner = expr()
      if (tokens[pos++] !== ')') throw fail('a parenthesis is not closed')
      return inner
    }
    if (/^[a-z]$/.test(t)) {
      const index = t.charCodeAt(0) - 97
      if (index >= seriesCount) {
        const defined = Array.from({ length: seriesCount }, (_, i) => String.fromCharCode(65 + i)).join(', ')
        throw wrenError(
          'invalid_formula',
          `Formula references series ${t.toUpperCase()}, but only ${seriesCount} series ${seriesCount === 1 ? 'is' : 'are'} defined (${defined}).`,
          'formula',
        )
      }
      letters.add(index)
      return { kind: 'var', index }
    }
    if (/^(\d|\.)/.test(t)) return { kind: 'num', value: Number(t) }
    throw fail(`unexpected '${t}'`)
  }
  const root = expr()
  if (pos < tokens.length) throw fail(`unexpected '${tokens[pos]}'`)
  const run = (n: Node, values: number[]): number => {
    switch (n.kind) {
      case 'num':
        return n.value
      case 'var':
        return values[n.index] ?? 0
      case 'neg':
        return -run(n.arg, values)
      case 'bin': {
        const a = run(n.left, values)
        const b = run(n.right, values)
        switch (n.op) {
          case '+':
            return a + b
          case '-':
            return a - b
          case '*':
            return a * b
          case '/':
            return b === 0 ? 0 : a / b
          case '%':
            return b === 0 ? 0 : a % b
          default:
            return a ** b
        }
      }
    }
  }
  return {
    text,
    letters: [...letters],
    evaluate: (values) => {
      const v = run(root, values)
      return Number.isFinite(v) ? v : 0
    },
  }
}
