// The recordings AI helpers with no model configured: a clear JSON error naming the settings to set,
// never a crash and never an answer; bad input is still refused first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, startWren, type TestWren } from '../support/wren'

describe('session recordings AI helpers without a model', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  beforeAll(async () => {
    t = await startWren()
    call = api(t)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('answers 501 ai_not_configured naming WREN_AI_URL and WREN_AI_MODEL, and keeps serving', async () => {
    const base = `/api/projects/${t.projectId}/session_recordings/ai`
    for (const [path, body] of [
      ['regex/', { regex: 'numbers' }],
      ['filters/', { messages: [{ role: 'user', content: 'long sessions' }] }],
    ] as const) {
      const res = await call('POST', `${base}/${path}`, body)
      expect(res.status).toBe(501)
      expect(res.body).toMatchObject({ type: 'server_error', code: 'ai_not_configured', attr: null })
      expect(res.body.detail).toContain('WREN_AI_URL and WREN_AI_MODEL')
    }
    expect((await call('POST', `${base}/regex/`, {})).status).toBe(400)
    expect((await fetch(`${t.url}/_health`)).status).toBe(200)
  })
})
