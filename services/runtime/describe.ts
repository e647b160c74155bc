// The runtime's tables as Markdown: what `wren roles` prints and docs/architecture.md embeds (a test keeps
// the two the same).
import { ROLE_NAMES, ROLE_TABLE, JOB_DOCS, Roles } from './roles'
import { groupName, retentionText, STREAMS } from '../platform/log/streams'
import { STOP_ORDER, stopOrder } from './stop-order'

function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n')
}

const code = (names: readonly string[]) => (names.length ? names.map((n) => `\`${n}\``).join(', ') : '–')

export function describeRoles(): string {
  return table(
    ['role', 'what it does', 'streams it consumes (embedded / cluster)', 'route groups', 'jobs'],
    ROLE_NAMES.map((role) => {
      const roles = new Roles([role])
      const embedded = new Roles(['all']).streams('embedded').filter((s) => roles.streams('cluster').includes(s))
      const clusterOnly = roles.streams('cluster').filter((s) => !embedded.includes(s))
      return [
        `\`${role}\``,
        ROLE_TABLE[role].does,
        `${code(embedded)}${clusterOnly.length ? `; cluster: ${code(clusterOnly)}` : ''}`,
        code(ROLE_TABLE[role].routes),
        ROLE_TABLE[role].jobs.map((j) => `\`${j}\`: ${JOB_DOCS[j]}`).join('; ') || '–',
      ]
    }),
  )
}

export function describeStreams(): string {
  return table(
    ['stream', 'topic', 'producer', 'consumer group', 'consumed by', 'stage', 'key', 'retention', 'modes'],
    STREAMS.map((s) => [
      `\`${s.name}\``,
      `\`${s.topic}\``,
      s.producer,
      `\`${groupName(s)}\``,
      code(s.consumers),
      s.stage ? `\`${s.stage}\`` : '–',
      s.key,
      retentionText(s),
      s.modes === 'both' ? 'embedded and cluster' : 'cluster (Kafka) only',
    ]),
  )
}

/** Each process's stop steps in the order its lifecycle runs them (the stop table's), and what each does. */
export function describeStopOrder(): string {
  const order = (roles: Roles, mode: 'embedded' | 'cluster') =>
    stopOrder(roles, mode)
      .map((step) => `\`${step.name}\`${step.when ? ` (${step.when})` : ''}`)
      .join(' → ')
  const processes = table(
    ['process', 'stops, in this order'],
    [
      ['`wren start` (embedded: every role)', order(new Roles(['all']), 'embedded')],
      ...ROLE_NAMES.map((role) => [`\`wren ${role}\` (cluster)`, order(new Roles([role]), 'cluster')]),
    ],
  )
  const steps = table(
    ['step', 'what stopping it does'],
    STOP_ORDER.map((row) => [`\`${row.name}\``, row.stops]),
  )
  return `${processes}\n\n${steps}`
}

export function describeRuntime(): string {
  return `### Roles\n\n${describeRoles()}\n\n### Streams and topics\n\n${describeStreams()}\n\n### Stop order\n\n${describeStopOrder()}\n`
}
