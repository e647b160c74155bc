// The table (./table.ts) in words: the configuration reference (docs/configuration.md, written by
// scripts/config-docs.ts) and the variables part of `wren help`.
import { GROUPS, VARIABLES, type ConfigVariable, type Group } from './table'

export const REFERENCE_PATH = 'docs/configuration.md'

export function renderReference(): string {
  const out = [
    '# Configuration',
    '',
    '<!-- Generated from services/platform/config/table.ts by `npm run docs:config` (a test fails when they disagree): edit the table, not this file. -->',
    '',
    'Wren reads its configuration from environment variables, once, at start. A value it does not accept stops the start',
    'with a message naming the variable and what it accepts; an empty value counts as unset. `wren config` prints the',
    'configuration in effect (keys and passwords masked) and which values are defaults.',
  ]
  for (const [group, { title, about }] of Object.entries(GROUPS)) {
    out.push('', `## ${title}`, '', about, '', '| Variable | Default | Accepts | Meaning |', '| --- | --- | --- | --- |')
    for (const v of inGroup(group as Group)) {
      const cells = [`\`${v.env}\``, defaultText(v, (t) => `\`${t}\``), v.parse.accepts, v.doc]
      out.push(`| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`)
    }
  }
  out.push(
    '',
    '## Failpoints',
    '',
    'Tests make a real Wren process fail on purpose (a crash between a write and its commit, a batch ClickHouse refuses, …)',
    'with `WREN_FAILPOINTS=name=value,…`. Failpoints are for tests only; `services/platform/config/failpoints.ts` declares',
    'them, with the tests that use them.',
    '',
  )
  return out.join('\n')
}

/** `wren help`'s list of variables, by group, with their defaults. */
export function usageVariables(width = 110): string {
  const lines = ['Configuration by environment (docs/configuration.md explains each; wren config shows what is in effect):']
  const indent = ' '.repeat(14)
  for (const group of Object.keys(GROUPS) as Group[]) {
    const names = inGroup(group).map((v) => (v.default ? `${v.env} (${v.default})` : v.env))
    let line = `  ${group.padEnd(indent.length - 2)}`
    for (const [i, name] of names.entries()) {
      const item = name + (i < names.length - 1 ? ',' : '')
      if (line.length + 1 + item.length > width && line.trim().length > group.length) {
        lines.push(line)
        line = indent + item
      } else line += (line.endsWith(' ') ? '' : ' ') + item
    }
    lines.push(line)
  }
  return lines.join('\n')
}

/** The default as the docs show it: the value, or what an unset variable means. */
export function defaultText(v: ConfigVariable, quote: (text: string) => string = (t) => t): string {
  return v.default ? quote(v.default) : (v.whenUnset ?? 'unset')
}

function inGroup(group: Group): ConfigVariable[] {
  return VARIABLES.filter((v) => v.group === group)
}
