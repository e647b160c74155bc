// The player's inspector: a side panel with the session's console lines (from the snapshots' `rrweb/console@1`
// plugin events, which posthog-js records when the project captures console logs) and the session's events
// (from Wren's events API), and a strip under the player with the session's clicks and page changes. Every item
// shows its time in the recording; choosing one moves the player there. Texts from the recording or the API go
// into the page as text, never as markup.
//
// A shared page (/shared/:token) shows the console and the strip only: both come from the snapshots its token
// already reads. Its token opens that one recording's retrieve and snapshots and nothing else, and the session's
// events carry more than the recording shows (every property, the person's too), so a shared page lists no events.

import { consoleLineFrom, EventType, hrefFrom, isClick, record, type RrwebEvent } from '../rrweb'

/** The console method's level as the inspector filters it: `log` for log, debug, trace and the like. */
export type ConsoleLevel = 'log' | 'info' | 'warn' | 'error'
export const CONSOLE_LEVELS: readonly ConsoleLevel[] = ['log', 'info', 'warn', 'error']

export interface ConsoleItem {
  /** Milliseconds from the recording's first event. */
  at: number
  level: ConsoleLevel
  message: string
}

export interface TimelineMark {
  at: number
  kind: 'click' | 'page'
  label: string
}

/** An event of the session as GET /api/projects/:id/events/ answers it. */
export interface SessionEvent {
  id: string
  event: string
  timestamp: string
  properties: Record<string, unknown>
}

/** rrweb's console plugin sends each argument stringified: a string argument arrives as a JSON string, quotes and all. */
function argumentText(item: string): string {
  if (!item.startsWith('"')) return item
  try {
    const parsed: unknown = JSON.parse(item)
    return typeof parsed === 'string' ? parsed : item
  } catch {
    return item
  }
}

/** The console lines of the recording, in time order. */
export function consoleItems(events: readonly RrwebEvent[], start: number): ConsoleItem[] {
  const items: ConsoleItem[] = []
  for (const event of events) {
    const line = consoleLineFrom(event)
    if (!line) continue
    // The metadata's levels (info/warn/error, as PostHog counts them) split info into console.info and the rest.
    const payload = record(record(event.data)?.payload)
    const level: ConsoleLevel = line.level !== 'info' ? line.level : payload?.level === 'info' ? 'info' : 'log'
    const args = Array.isArray(payload?.payload) ? payload.payload : []
    const message = args
      .filter((item): item is string => typeof item === 'string')
      .map(argumentText)
      .join(' ')
    items.push({ at: Math.max(0, event.timestamp - start), level, message: message || line.message })
  }
  return items
}

/** The recording's clicks, and each time the page's address changes (a page load, or posthog-js's URL events). */
export function timelineMarks(events: readonly RrwebEvent[], start: number): TimelineMark[] {
  const marks: TimelineMark[] = []
  let page: string | null = null
  for (const event of events) {
    const at = Math.max(0, event.timestamp - start)
    if (isClick(event)) marks.push({ at, kind: 'click', label: 'Click' })
    if (event.type !== EventType.Meta && event.type !== EventType.Custom && event.type !== EventType.Plugin) continue
    const href = hrefFrom(event)
    if (href !== null && href !== page) {
      page = href
      marks.push({ at, kind: 'page', label: href })
    }
  }
  return marks
}

/** Milliseconds as m:ss, as the inspector lists times. */
export const clock = (ms: number): string => {
  const seconds = Math.floor(ms / 1000)
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`
}

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value)
  node.append(...children)
  return node
}

const valueText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value))

export interface InspectorOptions {
  /** Moves the player to this many milliseconds from the recording's first event. */
  seek(at: number): void
  /** The recording's length in milliseconds, for the strip. */
  duration: number
  console: ConsoleItem[]
  marks: TimelineMark[]
  /** The session's events, or why there are none to show; null on a shared page, which lists none. */
  events: Promise<{ items: SessionEvent[]; start: number } | { error: string }> | null
}

/** Fills the panel and the strip. */
export function showInspector(panel: HTMLElement, strip: HTMLElement, opts: InspectorOptions): void {
  const jump = (at: number, label: string, ...content: Array<Node | string>) => {
    const button = element('button', { type: 'button', class: 'jump', 'data-at': String(at), title: `Play from ${clock(at)}` })
    button.append(element('time', {}, clock(at)), ' ', ...content)
    button.setAttribute('aria-label', `${label} at ${clock(at)}`)
    button.addEventListener('click', () => opts.seek(at))
    return button
  }

  // The strip: each mark where it happens, over the recording's length.
  strip.replaceChildren(
    element(
      'span',
      { class: 'legend' },
      element('span', { class: 'mark click' }),
      ' clicks ',
      element('span', { class: 'mark page' }),
      ' page changes',
    ),
    element(
      'div',
      { class: 'track' },
      ...opts.marks.map((mark) => {
        const button = element('button', {
          type: 'button',
          class: `mark ${mark.kind}`,
          style: `left: ${opts.duration > 0 ? Math.min(100, (100 * mark.at) / opts.duration) : 0}%`,
          'aria-label': `${mark.kind === 'click' ? 'Click' : `Page ${mark.label}`} at ${clock(mark.at)}`,
          title: `${mark.kind === 'click' ? 'Click' : mark.label} · ${clock(mark.at)}`,
        })
        button.addEventListener('click', () => opts.seek(mark.at))
        return button
      }),
    ),
  )
  strip.hidden = false

  // The console: a level filter and a search box over its lines.
  const level = element(
    'select',
    { 'aria-label': 'Console level' },
    element('option', { value: '' }, 'All levels'),
    ...CONSOLE_LEVELS.map((name) => element('option', { value: name }, name)),
  )
  const search = element('input', { type: 'search', 'aria-label': 'Search console', placeholder: 'Search console' })
  const lines = element('ol', { class: 'items console' })
  const consoleEmpty = element('p', { class: 'muted' })
  const drawConsole = () => {
    const text = search.value.trim().toLowerCase()
    const shown = opts.console.filter(
      (item) => (level.value === '' || item.level === level.value) && (text === '' || item.message.toLowerCase().includes(text)),
    )
    lines.replaceChildren(
      ...shown.map((item) =>
        element(
          'li',
          { class: `level-${item.level}` },
          jump(
            item.at,
            `console.${item.level}`,
            element('span', { class: 'level' }, item.level),
            ' ',
            element('span', { class: 'message' }, item.message),
          ),
        ),
      ),
    )
    consoleEmpty.textContent = shown.length
      ? ''
      : opts.console.length
        ? 'No console lines match.'
        : 'No console lines in this recording (the project records them when console log capture is on).'
  }
  level.addEventListener('change', drawConsole)
  search.addEventListener('input', drawConsole)
  drawConsole()
  const consolePane = element(
    'section',
    { class: 'pane', role: 'tabpanel', 'aria-label': 'Console' },
    element('div', { class: 'filters' }, level, search),
    consoleEmpty,
    lines,
  )

  const tabs = element('div', { class: 'tabs', role: 'tablist' })
  const panes: HTMLElement[] = [consolePane]
  const tabButtons: HTMLButtonElement[] = []
  const addTab = (name: string, pane: HTMLElement) => {
    const button = element('button', { type: 'button', role: 'tab' }, name)
    const index = tabButtons.length
    button.addEventListener('click', () => select(index))
    tabButtons.push(button)
    tabs.append(button)
    if (!panes.includes(pane)) panes.push(pane)
  }
  const select = (index: number) => {
    tabButtons.forEach((button, i) => button.setAttribute('aria-selected', String(i === index)))
    panes.forEach((pane, i) => (pane.hidden = i !== index))
  }
  addTab(`Console (${opts.console.length})`, consolePane)

  if (opts.events !== null) {
    const eventsPane = element(
      'section',
      { class: 'pane', role: 'tabpanel', 'aria-label': 'Events' },
      element('p', { class: 'muted' }, 'Loading the session’s events…'),
    )
    addTab('Events', eventsPane)
    const eventsTab = tabButtons[tabButtons.length - 1]
    void opts.events.then((loaded) => {
      if ('error' in loaded) {
        eventsPane.replaceChildren(element('p', { class: 'muted' }, loaded.error))
        return
      }
      eventsTab.textContent = `Events (${loaded.items.length})`
      const items = loaded.items.map((event) => {
        const at = Math.max(0, new Date(event.timestamp).getTime() - loaded.start)
        const keys = Object.keys(event.properties).sort()
        const properties = element(
          'details',
          {},
          element('summary', {}, `${keys.length} properties`),
          element(
            'table',
            { class: 'props' },
            element(
              'tbody',
              {},
              ...keys.map((key) =>
                element('tr', {}, element('th', { scope: 'row' }, key), element('td', {}, valueText(event.properties[key]))),
              ),
            ),
          ),
        )
        return element('li', { class: 'event' }, jump(at, event.event, element('span', { class: 'name' }, event.event)), properties)
      })
      eventsPane.replaceChildren(
        items.length
          ? element('ol', { class: 'items events' }, ...items)
          : element('p', { class: 'muted' }, 'No events carry this session’s id.'),
      )
    })
  }

  panel.replaceChildren(tabs, ...panes)
  select(0)
  panel.hidden = false
}
