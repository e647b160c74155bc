// Page-load benchmark: the web app's pages in headless Chromium with N events stored (default 1 M), the
// figure the issue asks for: home dashboard, trends, persons, the recordings list and the player. The events
// are bulk-loaded as the rows ingestion writes (as bench/trends.ts does), spread over the last 30 days; a
// few thousand persons and a few hundred recordings arrive through Wren's own /batch/ and /s/ so that the
// persons page and the recordings list have real rows. Each page is timed from navigation to the moment
// its content is drawn (no "Loading…" left; the player playing), first load then the median of the next runs.
// Next to each page: the same page's API answer alone, timed with fetch, as the reference.
//   npm run bench -- pages                   (BENCH_EVENTS=100000 for a quick run, CHROMIUM_PATH for another browser)
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pino from 'pino'
import { buildWren } from '../services/app'
import { loadConfig } from '../services/platform/config'
import { INSERT_SELECT_SETTINGS, queryRows } from '../services/platform/clickhouse'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../services/projects/store'
import { loadAverage, median } from './support'
import { chromiumMissing, launchChromium } from '../test/support/chromium'

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000)
const PERSONS = Number(process.env.BENCH_PERSONS ?? 5_000)
const RECORDINGS = Number(process.env.BENCH_RECORDINGS ?? 300)
const RUNS = Number(process.env.BENCH_RUNS ?? 5)
const CHUNK = 1_000_000
const KEY_STORAGE = 'wren.personalApiKey'

/** What the bench reads inside the page (this file is type-checked without the DOM's types). */
interface PageGlobal {
  document: { body: { dataset: Record<string, string | undefined> }; querySelector(selector: string): unknown }
  performance: { now(): number }
}

const missing = chromiumMissing()
if (missing) throw new Error(missing)
const dataDir = await mkdtemp(path.join(tmpdir(), 'wren-bench-pages-'))
const projectKey = generateKey(PROJECT_KEY_PREFIX)
const wren = await buildWren(
  loadConfig({
    WREN_DATA_DIR: dataDir,
    WREN_PROJECT_API_KEY: projectKey,
    WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX),
    WREN_RECORDINGS_WAIT_MS: '50',
  }),
  pino({ level: 'warn' }),
)
await wren.app.listen({ port: 0, host: '127.0.0.1' })
const address = wren.app.server.address()
const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
const team = wren.projects.list()[0].id
const { value: personalKey } = await wren.projects.createPersonalKey({ label: 'bench', scopes: ['*'] })
const ch = wren.clickhouse
const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1)

const browser = await launchChromium()
try {
  let start = performance.now()
  for (let offset = 0; offset < EVENTS; offset += CHUNK) {
    const n = Math.min(CHUNK, EVENTS - offset)
    await ch.command({
      query: `INSERT INTO events (uuid, event, properties, timestamp, team_id, distinct_id, elements_chain, created_at, person_id, person_created_at, person_properties, person_mode, group0_properties, group1_properties, group2_properties, group3_properties, group4_properties, _partition, _offset)
        SETTINGS ${INSERT_SELECT_SETTINGS}
        SELECT generateUUIDv4(number), ev, props, ts, {team:Int64}, did, '', ts, pid, now64(6) - toIntervalDay(40), '{"plan":"free"}', 'full', '{}', '{}', '{}', '{}', '{}', 0, intDiv(number, 10000)
        FROM (
          SELECT number,
            multiIf(number % 10 < 6, '$pageview', number % 10 < 8, 'signed_up', '$autocapture') AS ev,
            concat('{"$browser":"', ['Chrome', 'Safari', 'Firefox', 'Edge', 'Opera', 'Brave', 'Vivaldi', 'Samsung'][number % 8 + 1],
              '","$pathname":"/page/', toString(cityHash64(number, 5) % 50), '","$current_url":"https://example.com/page/', toString(cityHash64(number, 5) % 50),
              '","$session_id":"s', toString(cityHash64(number) % 200000), '","price":', toString(number % 100), '}') AS props,
            now64(6) - toIntervalSecond(cityHash64(number, 7) % (30 * 86400)) AS ts,
            concat('user', toString(cityHash64(number, 3) % 200000)) AS did,
            reinterpretAsUUID(concat(reinterpretAsString(cityHash64(did)), reinterpretAsString(cityHash64(did, 1)))) AS pid
          FROM numbers({offset:UInt64}, {n:UInt64}))`,
      query_params: { team, offset, n },
    })
  }
  console.log(`loaded ${EVENTS.toLocaleString()} events in ${seconds(start)} s (bulk SQL)`)

  // Persons and recordings through Wren's own intake, as an SDK sends them.
  start = performance.now()
  for (let first = 0; first < PERSONS; first += 1000) {
    const batch = Array.from({ length: Math.min(1000, PERSONS - first) }, (_, i) => ({
      event: '$identify',
      distinct_id: `person-${first + i}`,
      properties: { $set: { email: `person-${first + i}@example.com`, plan: i % 3 ? 'free' : 'pro', $browser: 'Chrome' } },
      timestamp: new Date().toISOString(),
    }))
    const res = await fetch(`${url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: projectKey, batch }),
    })
    if (res.status !== 200) throw new Error(`/batch/ answered ${res.status}`)
  }
  const optIn = await fetch(`${url}/api/projects/${team}/`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${personalKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ session_recording_opt_in: true }),
  })
  if (optIn.status !== 200) throw new Error(`turning recordings on answered ${optIn.status}`)
  const now = Date.now()
  for (let s = 0; s < RECORDINGS; s++) {
    const base = now - (RECORDINGS - s) * 60_000
    const events = [
      { type: 4, timestamp: base, data: { href: `https://example.com/page/${s % 50}`, width: 1280, height: 800 } },
      {
        type: 2,
        timestamp: base + 10,
        data: {
          node: {
            type: 0,
            id: 1,
            childNodes: [
              {
                type: 2,
                id: 2,
                tagName: 'html',
                attributes: {},
                childNodes: [{ type: 2, id: 3, tagName: 'body', attributes: {}, childNodes: [] }],
              },
            ],
          },
          initialOffset: { top: 0, left: 0 },
        },
      },
      ...Array.from({ length: 30 }, (_, i) => ({
        type: 3,
        timestamp: base + 1000 * (i + 1),
        data: { source: 1, positions: [{ x: i, y: i, id: 3, timeOffset: 0 }] },
      })),
    ]
    const res = await fetch(`${url}/s/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        {
          event: '$snapshot',
          distinct_id: `person-${s % PERSONS}`,
          properties: { token: projectKey, $session_id: `bench-session-${s}`, $window_id: 'w1', $snapshot_data: events },
        },
      ]),
    })
    if (res.status !== 200) throw new Error(`/s/ answered ${res.status}`)
  }
  for (;;) {
    const [{ persons }] = await queryRows<{ persons: number }>(ch, 'SELECT count(DISTINCT id) AS persons FROM person')
    const [{ sessions }] = await queryRows<{ sessions: number }>(
      ch,
      'SELECT uniqExact(session_id) AS sessions FROM session_recording_metadata',
    )
    if (Number(persons) >= PERSONS && Number(sessions) >= RECORDINGS) break
    if (performance.now() - start > 300_000) throw new Error(`after 5 minutes: ${persons} persons and ${sessions} recordings stored`)
    await new Promise((r) => setTimeout(r, 200))
  }
  console.log(
    `sent ${PERSONS.toLocaleString()} persons and ${RECORDINGS} recordings through /batch/ and /s/, stored in ${seconds(start)} s`,
  )

  const api = (p: string) => `${url}/api/projects/${team}${p}`
  const pages: Array<{ name: string; path: string; signedOut?: boolean; reference: () => Promise<unknown> }> = [
    // The floor: the app's page, script and styles with no API call (the sign-in form), next to the page's HTML alone.
    { name: 'sign-in form (no API call)', path: '/', signedOut: true, reference: () => get(url + '/', 'text') },
    {
      name: 'home dashboard',
      path: `/project/${team}`,
      reference: async () => get(api(`/dashboards/${((await get(api('/'))) as { primary_dashboard: number }).primary_dashboard}/`)),
    },
    {
      name: 'trends ($pageview, 7 days)',
      path: `/project/${team}/trends`,
      reference: () => post(api('/insights/trend/'), { events: [{ id: '$pageview' }], date_from: '-7d' }),
    },
    { name: 'persons', path: `/project/${team}/persons`, reference: () => get(api('/persons/')) },
    { name: 'recordings list', path: `/project/${team}/recordings`, reference: () => get(api('/session_recordings/')) },
    {
      name: 'player',
      path: `/project/${team}/replay/bench-session-${RECORDINGS - 1}`,
      // The player's two requests: the sources, then the blocks (playback.ts loadPlayback).
      reference: async () => {
        const snapshots = api(`/session_recordings/bench-session-${RECORDINGS - 1}/snapshots`)
        const { sources } = (await get(snapshots)) as { sources: Array<{ blob_key: string }> }
        const keys = sources.map((s) => Number(s.blob_key))
        return get(`${snapshots}?source=blob_v2&start_blob_key=${Math.min(...keys)}&end_blob_key=${Math.max(...keys)}`, 'text')
      },
    },
  ]
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } })
  // Page code as strings: this file is type-checked without the DOM's types.
  const signedOut = await browser.newContext({ viewport: { width: 1280, height: 860 } })
  await context.addInitScript(`localStorage.setItem(${JSON.stringify(KEY_STORAGE)}, ${JSON.stringify(personalKey)})`)
  console.log(`\npage loads with ${EVENTS.toLocaleString()} events (first load; median of ${RUNS} more) — API answer alone (median)`)
  for (const p of pages) {
    const times: number[] = []
    let lastRequests: Array<{ path: string; ms: number }> = []
    for (let run = 0; run <= RUNS; run++) {
      const page = await (p.signedOut ? signedOut : context).newPage()
      const requests: Array<{ path: string; ms: number }> = []
      page.on('requestfinished', (request) => {
        const timing = request.timing()
        requests.push({ path: new URL(request.url()).pathname, ms: timing.responseEnd })
      })
      await page.goto(url + p.path)
      // Drawn: the app's content with nothing loading, or the player playing. Functions, not strings: the
      // app's CSP forbids eval, and Playwright sends functions without it.
      await page
        .waitForFunction(
          () => {
            const { document } = globalThis as unknown as PageGlobal
            return (
              document.body.dataset.state === 'playing' ||
              document.querySelector('#key') !== null ||
              (document.querySelector('main.content > *') !== null && document.querySelector('.loading, [aria-busy="true"]') === null)
            )
          },
          undefined,
          { timeout: Number(process.env.BENCH_PAGE_TIMEOUT_MS ?? 120_000), polling: 10 },
        )
        .catch(async (e: unknown) => {
          await page.screenshot({ path: path.join(tmpdir(), 'wren-bench-pages-failure.png') })
          throw new Error(`${p.name} (${page.url()}) never finished drawing (screenshot in ${tmpdir()})`, { cause: e })
        })
      times.push(await page.evaluate(() => (globalThis as unknown as PageGlobal).performance.now()))
      if (run === RUNS) lastRequests = requests
      await page.close()
    }
    const reference: number[] = []
    for (let run = 0; run < RUNS; run++) {
      const t = performance.now()
      await p.reference()
      reference.push(performance.now() - t)
    }
    console.log(
      `  ${p.name.padEnd(28)} ${times[0].toFixed(0).padStart(6)} ms first, ${median(times.slice(1)).toFixed(0).padStart(6)} ms median — API ${median(reference).toFixed(0)} ms`,
    )
    if (process.env.BENCH_VERBOSE) for (const r of lastRequests) console.log(`      ${r.ms.toFixed(0).padStart(6)} ms ${r.path}`)
    const api = lastRequests.filter((r) => r.path.startsWith('/api/'))
    const slowest = api.sort((x, y) => y.ms - x.ms)[0]
    console.log(
      `  ${''.padEnd(28)} ${lastRequests.length} requests, ${api.length} to the API${slowest ? `, slowest ${slowest.path} ${slowest.ms.toFixed(0)} ms` : ''}`,
    )
  }
  console.log(`load average ${loadAverage()}`)
} finally {
  await browser.close()
  await wren.close()
  await rm(dataDir, { recursive: true, force: true })
}

async function get(to: string, as: 'json' | 'text' = 'json'): Promise<unknown> {
  const res = await fetch(to, { headers: { authorization: `Bearer ${personalKey}` } })
  if (res.status !== 200) throw new Error(`${to} answered ${res.status}`)
  return as === 'json' ? res.json() : res.text()
}

async function post(to: string, body: unknown): Promise<unknown> {
  const res = await fetch(to, {
    method: 'POST',
    headers: { authorization: `Bearer ${personalKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (res.status !== 200) throw new Error(`${to} answered ${res.status}`)
  return res.json()
}
