// The HTML of the two player pages: the authenticated one (GET /project/:project_id/replay/:session_id, which
// reads with the web app's signed-in session, or opens one with a pasted personal API key) and the shared one (/shared/:token, which reads
// with its sharing token). Both load the same script and styles from Wren (services/recordings/player-assets.ts);
// the page only carries what the script needs, as JSON in a <script type="application/json">.

export const PLAYER_SCRIPT_URL = '/static/wren/player.js'
export const PLAYER_STYLES_URL = '/static/wren/player.css'

/**
 * The player pages' Content-Security-Policy. Scripts and API calls: Wren's own only, so nothing a recording holds
 * can run or send the key elsewhere. The replay is an about:blank iframe that inherits this policy and rebuilds
 * the recorded page: its <style> elements and style attributes (rrweb's and rrweb-player's too), and the images,
 * fonts, media and stylesheets it loaded from its own site, so those may come from anywhere.
 * The authenticated page holds a key form and the key: never framed. The shared page is meant to be embedded
 * (PostHog's shared recordings offer an iframe snippet) and holds only its token, which the framing site has.
 */
export function playerPolicy(page: 'authenticated' | 'shared'): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "connect-src 'self'",
    "style-src * 'unsafe-inline' data: blob:",
    'img-src * data: blob:',
    'font-src * data:',
    'media-src * data: blob:',
    "form-action 'none'",
    "base-uri 'none'",
    `frame-ancestors ${page === 'shared' ? '*' : "'none'"}`,
  ].join('; ')
}

/** What the page hands its script. */
export interface PlayerConfig {
  projectId: number
  sessionId: string
  /** The shared page's token, sent as ?sharing_access_token=; null on the authenticated page. */
  sharingAccessToken: string | null
  /** Seconds into the recording to start at (PostHog's `?t=`, which posthog-js's replay links carry); 0 from the start. */
  startAt: number
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char])
}

/**
 * JSON for a <script type="application/json">: `<`, `>` and `&` as \u escapes, so no value can close the
 * script element or open a comment; U+2028/U+2029 too, for any reader that takes it as JavaScript.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

function playerPage(config: PlayerConfig, heading: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${escapeHtml(heading)} · Wren</title>
<link rel="stylesheet" href="${PLAYER_STYLES_URL}">
</head>
<body>
<main>
<h1>${escapeHtml(heading)}</h1>
<ul class="facts" id="wren-facts"></ul>
<form class="key" id="wren-key-form" hidden>
<label for="wren-key">Personal API key</label>
<input id="wren-key" name="key" type="password" autocomplete="off" placeholder="phx_…" required>
<button type="submit">Play</button>
</form>
<p id="wren-status" role="status">Loading…</p>
<div class="stage">
<div class="replay-column" id="wren-replay-column">
<div id="wren-replay"></div>
<div class="timeline" id="wren-timeline" aria-label="Clicks and page changes" hidden></div>
</div>
<aside class="inspector" id="wren-inspector" aria-label="Inspector" hidden></aside>
</div>
</main>
<script type="application/json" id="wren-player-config">${jsonForScript(config)}</script>
<script src="${PLAYER_SCRIPT_URL}"></script>
</body>
</html>
`
}

/** The shared page: it reads the recording with the sharing token, and nothing else. */
export function sharedPlayerPage(opts: { projectId: number; sessionId: string; accessToken: string }): string {
  return playerPage(
    { projectId: opts.projectId, sessionId: opts.sessionId, sharingAccessToken: opts.accessToken, startAt: 0 },
    'Shared recording',
  )
}

/** The authenticated page: public HTML without secrets; its script sends the key the browser keeps. */
export function replayPage(opts: { projectId: number; sessionId: string; startAt: number }): string {
  return playerPage({ ...opts, sharingAccessToken: null }, `Recording ${opts.sessionId}`)
}
