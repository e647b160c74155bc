// The configuration as the table (./table.ts) and the failpoints (./failpoints.ts) read it from the environment.
import type { Config } from './types'
import { readFailpoints } from './failpoints'
import { SECTION_SWITCHES, VARIABLES, type ConfigVariable } from './table'

/** The configuration in `env`, or an Error naming each variable whose value it does not accept. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = []
  const config: Record<string, unknown> = {}
  for (const read of readVariables(env)) {
    if (read.problem) problems.push(read.problem)
    else setField(config, read.variable.field, read.value)
  }
  for (const [section, variable] of Object.entries(SECTION_SWITCHES)) if (!env[variable]) config[section] = null
  config.failpoints = readFailpoints(env.WREN_FAILPOINTS, problems)
  // The variables each failpoint had before WREN_FAILPOINTS: a test still setting one would silently test nothing.
  for (const name of Object.keys(env).filter((n) => n.startsWith('WREN_FAILPOINT_')))
    problems.push(`${name} is no longer read: failpoints are set as WREN_FAILPOINTS=name=value,… (services/platform/config/failpoints.ts)`)
  if (problems.length) throw new Error(problems.join('\n'))
  return config as unknown as Config
}

export interface ReadVariable {
  variable: ConfigVariable
  /** As set in the environment; undefined when unset or empty (an empty value counts as unset). */
  raw: string | undefined
  value: unknown
  problem: string | null
}

/** Each variable of the table as the environment sets it, parsed (loadConfig, `wren config`). */
export function readVariables(env: NodeJS.ProcessEnv): ReadVariable[] {
  return VARIABLES.map((variable) => {
    const raw = env[variable.env] || undefined
    const text = raw ?? variable.default
    if (text === undefined) return { variable, raw, value: null, problem: null }
    try {
      return { variable, raw, value: variable.parse.parse(text), problem: null }
    } catch (error) {
      // A parser may say what is wrong beyond what it accepts (a secret's own value is never shown).
      const why = error instanceof Error && error.message ? `: ${error.message}` : ''
      const got = variable.secret ? '' : `, got ${raw}`
      return { variable, raw, value: null, problem: `${variable.env} must be ${variable.parse.accepts}${got}${why}` }
    }
  })
}

function setField(config: Record<string, unknown>, field: string, value: unknown): void {
  const names = field.split('.')
  let at = config
  for (const name of names.slice(0, -1)) at = (at[name] ??= {}) as Record<string, unknown>
  at[names[names.length - 1]] = value
}
