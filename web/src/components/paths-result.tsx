// A paths result as a Sankey diagram: a column per step, a node per item at that step (its height the sessions
// through it), a band per edge (its width the sessions that took it). Hovering a node or a band shows its count;
// a node's button lists the persons who reached it. Columns keep a readable width and nodes a readable height, so
// a chart of 50 edges grows (and scrolls sideways on a narrow screen) rather than squeezing its labels.
import { useMemo, useState } from 'preact/hooks'
import { formatValue } from '../chart-data'
import { useWidth } from './bar-chart'

export interface PathsLink {
  source: string
  target: string
  value: number
  average_conversion_time: number
}

interface Node {
  key: string
  name: string
  step: number
  value: number
  x: number
  y: number
  h: number
}

const linksOf = (result: unknown): PathsLink[] => (Array.isArray(result) ? (result as PathsLink[]) : [])

export const pathsHasData = (result: unknown) => linksOf(result).length > 0

/** "2_/about": step 2, item /about. */
export function splitKey(key: string): { step: number; name: string } {
  const at = key.indexOf('_')
  return { step: Number(key.slice(0, at)) || 1, name: key.slice(at + 1) }
}

const NODE_W = 10
const GAP = 14
const MIN_COLUMN = 170
const MIN_NODE = 4
const shorten = (text: string, n: number) => (text.length > n ? `${text.slice(0, n - 1)}…` : text)

export function layoutPaths(links: PathsLink[], width: number, compact: boolean) {
  const nodes = new Map<string, Node>()
  const inflow = new Map<string, number>()
  const outflow = new Map<string, number>()
  for (const l of links) {
    outflow.set(l.source, (outflow.get(l.source) ?? 0) + l.value)
    inflow.set(l.target, (inflow.get(l.target) ?? 0) + l.value)
    for (const key of [l.source, l.target]) if (!nodes.has(key)) nodes.set(key, { key, ...splitKey(key), value: 0, x: 0, y: 0, h: 0 })
  }
  for (const n of nodes.values()) n.value = Math.max(inflow.get(n.key) ?? 0, outflow.get(n.key) ?? 0)
  const steps = [...new Set([...nodes.values()].map((n) => n.step))].sort((a, b) => a - b)
  const columns = steps.map((s) => [...nodes.values()].filter((n) => n.step === s).sort((a, b) => b.value - a.value))
  const tallest = Math.max(1, ...columns.map((c) => c.length))
  const height = Math.max(compact ? 200 : 320, tallest * (MIN_NODE + GAP) + 40)
  const plotH = height - 20
  const scale = Math.min(
    ...columns.map(
      (c) =>
        (plotH - GAP * (c.length - 1)) /
        Math.max(
          1,
          c.reduce((a, n) => a + n.value, 0),
        ),
    ),
  )
  const drawnWidth = Math.max(width, steps.length * MIN_COLUMN)
  const spacing = steps.length > 1 ? (drawnWidth - NODE_W - 2) / (steps.length - 1) : 0
  columns.forEach((column, c) => {
    let y = 10
    for (const n of column) {
      n.x = c * spacing
      n.y = y
      n.h = Math.max(n.value * scale, MIN_NODE)
      y += n.h + GAP
    }
  })
  // Each band leaves its source below the bands before it and enters its target likewise, in the targets' order.
  const outAt = new Map<string, number>()
  const inAt = new Map<string, number>()
  const ordered = [...links].sort(
    (a, b) => nodes.get(a.target)!.y - nodes.get(b.target)!.y || nodes.get(a.source)!.y - nodes.get(b.source)!.y,
  )
  const bands = ordered.map((l) => {
    const s = nodes.get(l.source)!
    const t = nodes.get(l.target)!
    const w = Math.max(l.value * scale, 1)
    const y0 = s.y + (outAt.get(s.key) ?? 0) + w / 2
    const y1 = t.y + (inAt.get(t.key) ?? 0) + w / 2
    outAt.set(s.key, (outAt.get(s.key) ?? 0) + w)
    inAt.set(t.key, (inAt.get(t.key) ?? 0) + w)
    const x0 = s.x + NODE_W
    const x1 = t.x
    const mid = (x0 + x1) / 2
    return { link: l, w, d: `M${x0},${y0} C${mid},${y0} ${mid},${y1} ${x1},${y1}` }
  })
  return { nodes: [...nodes.values()], bands, width: drawnWidth, height, lastStep: steps[steps.length - 1] ?? 1, spacing }
}

export function PathsResult({ result, compact = false, onNode }: { result: unknown; compact?: boolean; onNode?: (key: string) => void }) {
  const links = linksOf(result)
  const [box, width] = useWidth<HTMLDivElement>()
  const [hover, setHover] = useState<string | null>(null)
  const layout = useMemo(() => layoutPaths(links, Math.max(width - 4, 0), compact), [result, width, compact])
  const labelRoom = Math.max(60, Math.min(layout.spacing - NODE_W - 16, 240))
  const chars = Math.floor(labelRoom / 6.5)
  const drawn = JSON.stringify({
    nodes: layout.nodes.map((n) => ({ key: n.key, value: n.value })),
    links: links.map((l) => [l.source, l.target, l.value]),
  })
  return (
    <div class={compact ? 'paths compact' : 'paths'}>
      <div class="paths-scroll" ref={box} data-testid="paths-chart" data-values={drawn}>
        {width > 0 ? (
          <svg width={layout.width} height={layout.height} role="img" aria-label="Paths" onMouseLeave={() => setHover(null)}>
            <g class="bands">
              {layout.bands.map((b) => {
                const text = `${splitKey(b.link.source).name} → ${splitKey(b.link.target).name}: ${formatValue(b.link.value)}`
                return (
                  <path
                    d={b.d}
                    stroke-width={b.w}
                    class={hover === text ? 'band hovered' : 'band'}
                    data-edge={`${b.link.source}→${b.link.target}`}
                    onMouseEnter={() => setHover(text)}
                  >
                    <title>{text}</title>
                  </path>
                )
              })}
            </g>
            {layout.nodes.map((n) => {
              const text = `Step ${n.step}: ${n.name}: ${formatValue(n.value)}`
              const right = n.step !== layout.lastStep
              const label = (
                <text x={right ? n.x + NODE_W + 4 : n.x - 4} y={n.y + n.h / 2 + 4} text-anchor={right ? 'start' : 'end'} class="node-label">
                  {shorten(n.name, chars)} <tspan class="node-count">{formatValue(n.value)}</tspan>
                </text>
              )
              return (
                <g class="node" data-node={n.key} onMouseEnter={() => setHover(text)}>
                  <rect x={n.x} y={n.y} width={NODE_W} height={n.h} rx={2}>
                    <title>{text}</title>
                  </rect>
                  {onNode && !compact ? (
                    <g
                      role="button"
                      tabIndex={0}
                      class="node-persons"
                      aria-label={`Persons at step ${n.step}: ${n.name}`}
                      onClick={() => onNode(n.key)}
                      onKeyDown={(e) => e.key === 'Enter' && onNode(n.key)}
                    >
                      {label}
                    </g>
                  ) : (
                    label
                  )}
                </g>
              )
            })}
          </svg>
        ) : null}
      </div>
      {!compact ? (
        <p class="chart-hover small" data-testid="hovered" aria-live="polite">
          {hover ?? <span class="muted">Hover a step or a path to see its count; click a step to list its persons.</span>}
        </p>
      ) : null}
    </div>
  )
}
