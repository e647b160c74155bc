// `wren config`: the configuration in effect, each variable with its value (keys and passwords masked)
// and whether it is the default, then what is wrong with it, if anything.
import { GROUPS, VARIABLES, type Group } from './table'
import { readVariables } from './load'
import { defaultText } from './render'

/** The lines `wren config` prints, and the problems that would stop a start. */
export function describeConfig(env: NodeJS.ProcessEnv): { text: string; problems: string[] } {
  const read = readVariables(env)
  const width = Math.max(...VARIABLES.map((v) => v.env.length))
  const out: string[] = []
  const problems: string[] = []
  for (const group of Object.keys(GROUPS) as Group[]) {
    out.push(group)
    for (const { variable, raw, problem } of read.filter((r) => r.variable.group === group)) {
      const shown = raw === undefined ? defaultText(variable) : variable.secret ? '********' : withoutPassword(raw)
      out.push(`  ${variable.env.padEnd(width)}  ${shown}${raw === undefined ? '  (default)' : ''}${problem ? `  <- ${problem}` : ''}`)
      if (problem) problems.push(problem)
    }
  }
  if (env.WREN_FAILPOINTS) out.push('failpoints (tests only)', `  WREN_FAILPOINTS  ${env.WREN_FAILPOINTS}`)
  const known = new Set([...VARIABLES.map((v) => v.env), 'WREN_FAILPOINTS'])
  const unknown = Object.keys(env).filter((name) => /^(WREN|KAFKA|CLICKHOUSE)_/.test(name) && !known.has(name) && env[name])
  if (unknown.length) out.push('set, but not read by Wren', ...unknown.sort().map((name) => `  ${name}`))
  return { text: out.join('\n'), problems }
}

/** Prints the configuration; exit code 1 when a value would stop a start (each problem on stderr too). */
export function printConfig(env: NodeJS.ProcessEnv = process.env): number {
  const { text, problems } = describeConfig(env)
  console.log(text)
  if (problems.length) console.error(problems.join('\n'))
  return problems.length ? 1 : 0
}

/** A URL's password (CLICKHOUSE_URL=http://user:secret@host) is a secret too. */
function withoutPassword(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*:)[^/@]*@/i, '$1********@')
}
