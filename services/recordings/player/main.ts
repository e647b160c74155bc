// The player pages' script (bundled for the browser by services/recordings/player-assets.ts; type-checked with
// the DOM by this folder's tsconfig.json). It reads the page's configuration, loads the recording's metadata and
// snapshots through Wren's API (with the page's sharing token, or the web app's signed-in session: its cookie,
// which this page can also open with a pasted personal API key), and plays the events with rrweb's player. Every text from the server or the page's
// configuration goes into the page as text, never as markup.

import Player from 'rrweb-player'
import { loadPlayback } from '../playback'
import type { PlayerConfig } from '../player-page'
import { clock, consoleItems, showInspector, timelineMarks, type SessionEvent } from './inspector'

class ApiError extends Error {
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(detail)
  }
}

const byId = (id: string): HTMLElement => {
  const element = document.getElementById(id)
  if (!element) throw new Error(`The page has no #${id}.`)
  return element
}

const config = JSON.parse(byId('wren-player-config').textContent ?? '{}') as PlayerConfig
const status = byId('wren-status')
const facts = byId('wren-facts')
const form = byId('wren-key-form') as HTMLFormElement
const replay = byId('wren-replay')
const replayColumn = byId('wren-replay-column')
const timeline = byId('wren-timeline')
const inspector = byId('wren-inspector')

function show(state: 'loading' | 'playing' | 'error' | 'needs-key', message: string): void {
  document.body.dataset.state = state
  status.className = state === 'error' ? 'error' : ''
  status.textContent = message
}

const base = `/api/projects/${config.projectId}/session_recordings/${encodeURIComponent(config.sessionId)}`

async function request(path: string, params: Record<string, string>, under = base): Promise<Response> {
  const query = new URLSearchParams(params)
  const shared = config.sharingAccessToken !== null
  if (shared) query.set('sharing_access_token', config.sharingAccessToken!)
  const search = query.toString()
  // A shared page sends no cookie: the token alone decides, whoever opens it.
  const response = await fetch(`${under}${path}${search ? `?${search}` : ''}`, { credentials: shared ? 'omit' : 'same-origin' })
  if (response.ok) return response
  const body = (await response.json().catch(() => null)) as { detail?: unknown } | null
  const detail = typeof body?.detail === 'string' ? body.detail : `${response.status} ${response.statusText}`
  throw new ApiError(response.status, detail)
}

function showFacts(recording: Record<string, unknown>): void {
  const items: Array<[string, unknown]> = [
    ['Started', typeof recording.start_time === 'string' ? new Date(recording.start_time).toLocaleString() : null],
    ['Duration', typeof recording.recording_duration === 'number' ? `${recording.recording_duration} s` : null],
    ['Person', recording.distinct_id],
    ['Clicks', recording.click_count],
    ['Keypresses', recording.keypress_count],
    ['Console errors', recording.console_error_count],
    ['URL', recording.start_url],
  ]
  facts.replaceChildren(
    ...items
      .filter(([, value]) => value !== null && value !== undefined && value !== '')
      .map(([label, value]) => {
        const item = document.createElement('li')
        item.textContent = `${label}: ${String(value)}`
        return item
      }),
  )
}

/** Events around the recording that carry its session id: at most this many, oldest first. */
const MAX_SESSION_EVENTS = 1000
const EVENTS_MARGIN_MS = 60_000

/**
 * The session's events through the events API (the key needs `query:read`), oldest first, or why there are none.
 * The list is bounded by the recording's times (a minute either side: posthog-js sends the pageview before it starts
 * recording) to spare the query.
 */
async function sessionEvents(recording: Record<string, unknown>): Promise<{ items: SessionEvent[] } | { error: string }> {
  const params: Record<string, string> = {
    properties: JSON.stringify([{ key: '$session_id', value: config.sessionId, operator: 'exact', type: 'event' }]),
    limit: String(MAX_SESSION_EVENTS),
  }
  const around = (at: unknown, by: number) => (typeof at === 'string' ? new Date(new Date(at).getTime() + by).toISOString() : null)
  const after = around(recording.start_time, -EVENTS_MARGIN_MS)
  const before = around(recording.end_time, EVENTS_MARGIN_MS)
  if (after) params.after = after
  if (before) params.before = before
  try {
    const page = (await (await request('/events/', params, `/api/projects/${config.projectId}`)).json()) as { results: SessionEvent[] }
    return { items: page.results.reverse() }
  } catch (error) {
    if (error instanceof ApiError && error.status === 403)
      return { error: `The session’s events need a key with query:read. ${error.message}` }
    return { error: error instanceof Error ? error.message : String(error) }
  }
}

/** The player's size: its column's width (at least 240 px), at 16:9. */
function columnSize(): { width: number; height: number } {
  const style = getComputedStyle(replayColumn)
  const width = Math.max(240, Math.floor(replayColumn.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)))
  return { width, height: Math.round((width * 9) / 16) }
}

/** What keeps the player to its column's width (the last player's, stopped when another is made). */
let resizing: ResizeObserver | null = null

async function play(first = false): Promise<void> {
  resizing?.disconnect()
  show('loading', 'Loading the recording…')
  replay.replaceChildren()
  inspector.hidden = true
  timeline.hidden = true
  try {
    const recording = (await (await request('/', {})).json()) as Record<string, unknown>
    showFacts(recording)
    // A shared page lists no events (inspector.ts says why); the authenticated page asks while the snapshots load.
    const loadingEvents = config.sharingAccessToken === null ? sessionEvents(recording) : null
    const { events, skipped } = await loadPlayback(async (params) => (await request('/snapshots', params)).text())
    if (events.length < 2) throw new Error('This recording has no snapshots to play yet.')
    // The inspector sits beside the player on a wide window and below it on a narrow one: the player takes its column.
    inspector.hidden = false
    let size = columnSize()
    const player = new Player({ target: replay, props: { events: events as never, ...size, autoPlay: false, showController: true } })
    // And keeps to it when the window changes (a phone turned, a window narrowed): rrweb-player's size is fixed at birth.
    resizing = new ResizeObserver(() => {
      if (columnSize().width === size.width) return
      size = columnSize()
      // $set is Svelte's, whose types rrweb-player names but does not bring.
      ;(player as unknown as { $set(props: { width: number; height: number }): void }).$set(size)
      player.triggerResize()
    })
    resizing.observe(replayColumn)
    // Whether the player is playing or paused, for whoever reads the page (a test pauses it before a jump). It
    // starts playing once this listens: with autoPlay the player would start inside its constructor, unheard.
    player.addEventListener('ui-update-player-state', (detail) => {
      document.body.dataset.player = (detail as { payload: string }).payload
    })
    player.play()
    const start = events[0].timestamp
    showInspector(inspector, timeline, {
      // Without a second argument the player keeps playing, or stays paused, as it was.
      seek: (at) => player.goto(at),
      duration: events[events.length - 1].timestamp - start,
      console: consoleItems(events, start),
      marks: timelineMarks(events, start),
      events: loadingEvents && loadingEvents.then((loaded) => ('error' in loaded ? loaded : { ...loaded, start })),
    })
    const notes = skipped ? [`${skipped} events could not be read and are left out.`] : []
    if (config.startAt > 0) {
      player.goto(config.startAt * 1000, true)
      notes.unshift(`Playing from ${clock(config.startAt * 1000)}.`)
    }
    show('playing', notes.join(' '))
  } catch (error) {
    const refused = config.sharingAccessToken === null && error instanceof ApiError && (error.status === 401 || error.status === 403)
    // Not signed in yet: ask for a key (or the app's sign-in); signed in but refused: say why, and offer another key.
    if (refused && first && error.status === 401) return askForKey(true)
    show('error', error instanceof Error ? error.message : String(error))
    if (refused) askForKey(false)
  }
}

function askForKey(firstTime: boolean): void {
  form.hidden = false
  if (firstTime)
    show('needs-key', 'Sign in to Wren (the app), or paste a personal API key with session_recording:read, to play this recording.')
}

/** Signs in with a pasted key, as the app's sign-in does: the browser keeps a session acting as the key, never the key. */
form.addEventListener('submit', (submitted) => {
  submitted.preventDefault()
  const key = (new FormData(form).get('key') ?? '').toString().trim()
  if (key === '') return
  form.reset()
  void (async () => {
    const response = await fetch('/api/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ personal_api_key: key }),
      credentials: 'same-origin',
    })
    if (!response.ok) {
      const body = (await response.json().catch(() => null)) as { detail?: unknown } | null
      show('error', typeof body?.detail === 'string' ? body.detail : `${response.status} ${response.statusText}`)
      return
    }
    form.hidden = true
    await play()
  })()
})

void play(true)
