// The box that follows the cursor over a chart: the hovered bucket's label and every series' value in it, each
// with its colour. It sits beside the cursor, on its left near the window's right edge and above it near the
// bottom, so it never leaves the window; it takes no clicks (the chart under it does).
import { useLayoutEffect, useRef } from 'preact/hooks'
import { formatValue } from '../chart-data'

export interface TooltipRow {
  label: string
  colour: string
  value: number | null | undefined
  /** Drawn paler (a comparison's previous period). */
  faded?: boolean
}

/** Where the cursor is, in the window's coordinates (a mouse event's clientX and clientY). */
export interface CursorAt {
  x: number
  y: number
}

const GAP = 14
const MARGIN = 4

/** `left`, `top` for a box of `width` × `height` beside the cursor at `at`, inside a window of `view`. */
export function placeBeside(at: CursorAt, width: number, height: number, view: { width: number; height: number }) {
  const left = at.x + GAP + width <= view.width - MARGIN ? at.x + GAP : at.x - GAP - width
  const top = at.y + GAP + height <= view.height - MARGIN ? at.y + GAP : at.y - GAP - height
  return { left: Math.max(MARGIN, left), top: Math.max(MARGIN, top) }
}

export function ChartTooltip({ at, title, rows, hint }: { at: CursorAt; title: string; rows: TooltipRow[]; hint?: string }) {
  const box = useRef<HTMLDivElement>(null)
  // Placed once drawn, before the browser paints: its size is known only then.
  useLayoutEffect(() => {
    const element = box.current
    if (!element) return
    const { left, top } = placeBeside(at, element.offsetWidth, element.offsetHeight, {
      width: document.documentElement.clientWidth,
      height: window.innerHeight,
    })
    element.style.left = `${left}px`
    element.style.top = `${top}px`
  })
  return (
    <div class="chart-tooltip" ref={box} role="tooltip" data-testid="chart-tooltip">
      <strong class="tooltip-title">{title}</strong>
      <table>
        <tbody>
          {rows.map((r) => (
            <tr data-series={r.label}>
              <td class="tooltip-label">
                <span class="swatch" style={{ background: r.colour, opacity: r.faded ? 0.45 : 1 }} /> {r.label}
              </td>
              <td class="num">{formatValue(r.value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {hint ? <p class="muted small">{hint}</p> : null}
    </div>
  )
}
