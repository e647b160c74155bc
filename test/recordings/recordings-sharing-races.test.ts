// Sharing writes that race, over HTTP on real chDB: a disable racing a token refresh ends disabled (the
// refresh's answer says so too), and two first enables at once answer the one token that is stored and
// works on the shared page. In one process the racing writes' order is settled by the event loop and chDB's one
// query at a time: over 20 rounds on main, the refresh ran last in the first and the disable in every other, so
// ten rounds (and five first enables) hold both orders.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, startWren, type TestWren } from '../support/wren'
import { recordingsProcessed, sendSnapshots } from '../support/recordings'

describe('racing sharing writes', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  const start = Date.now() - 60_000
  const meta = { type: 4, timestamp: start, data: { href: 'https://example.com/race', width: 800, height: 600 } }
  const click = { type: 3, timestamp: start + 1_000, data: { source: 2, type: 2, id: 1, x: 10, y: 10 } }
  const sharing = (id: string) => `/api/projects/${t.projectId}/session_recordings/${id}/sharing/`
  const page = async (token: string) => (await fetch(`${t.url}/shared/${token}`)).status
  const firstEnables = Array.from({ length: 5 }, (_, i) => `race-first-${i}`)

  beforeAll(async () => {
    t = await startWren({ WREN_RECORDINGS_WAIT_MS: '20', WREN_AUTH_FAILURE_LIMIT: '0' })
    call = api(t)
    expect((await call('PATCH', `/api/projects/${t.projectId}/`, { session_recording_opt_in: true })).status).toBe(200)
    for (const sessionId of ['race-refresh', ...firstEnables])
      await sendSnapshots({ url: t.url, projectKey: t.projectKey }, { sessionId, distinctId: `user-${sessionId}`, events: [meta, click] })
    await recordingsProcessed(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('a disable racing a refresh ends disabled, as the answer written last says', async () => {
    for (let i = 0; i < 10; i++) {
      expect((await call('PATCH', sharing('race-refresh'), { enabled: true })).status).toBe(200)
      const [disable, refresh] = await Promise.all([
        call('PATCH', sharing('race-refresh'), { enabled: false }),
        call('POST', `${sharing('race-refresh')}refresh/`),
      ])
      expect([disable.status, refresh.status]).toEqual([200, 200])
      expect(disable.body.enabled).toBe(false)
      const stored = (await call('GET', sharing('race-refresh'))).body
      // Whatever order the two ran in, the one that ran last answered what is stored, and it is disabled.
      const answers = [disable.body, refresh.body].map((a) => ({ enabled: a.enabled, token: a.access_token }))
      expect(answers, `round ${i}`).toContainEqual({ enabled: stored.enabled, token: stored.access_token })
      expect(stored.enabled, `round ${i}`).toBe(false)
      expect(await page(stored.access_token)).toBe(404)
      expect(await page(refresh.body.access_token)).toBe(404)
    }
  })

  it('two first enables at once answer the same token, the one that is stored and works', async () => {
    for (const sessionId of firstEnables) {
      const [a, b] = await Promise.all([
        call('PATCH', sharing(sessionId), { enabled: true }),
        call('PATCH', sharing(sessionId), { enabled: true }),
      ])
      expect([a.status, b.status]).toEqual([200, 200])
      expect(a.body.access_token, sessionId).toBe(b.body.access_token)
      expect((await call('GET', sharing(sessionId))).body).toMatchObject({ enabled: true, access_token: a.body.access_token })
      expect(await page(a.body.access_token), sessionId).toBe(200)
    }
  })
})
