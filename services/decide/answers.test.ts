// Decide's answer without HTTP: FlagAnswers takes what the route hands it (query, headers, body bytes) and
// gives the bytes the route writes. A request seen before is answered from the kept bytes while its stamp
// holds, and evaluated again once it does not.
import { describe, expect, it } from 'vitest'
import { fixedClock } from '../platform/clock'
import { Metrics } from '../platform/metrics'
import type { Project } from '../platform/tenancy'
import { FlagAnswers, type FlagsCall } from './answers'
import type { Reason } from './evaluate'
import type { Evaluation, Stamp } from './service'
import type { FlagsRequest } from './request'
import { flag } from './testing/flags'
import { NO_SURVEYS } from './remote-config'

const project: Project = { id: 1, name: 'p', apiToken: 'phc_test', timezone: 'UTC', settings: {}, createdAt: '' }
const rollout = flag('rollout', { groups: [{ properties: [], rollout_percentage: 100 }] })
const REASON: Reason = Object.freeze({ code: 'condition_match', condition_index: 0, description: 'Matched condition set 1' })

function setup() {
  let state = 1
  let evaluations = 0
  const answers = new FlagAnswers({
    projects: { byToken: (token) => (token === project.apiToken ? project : undefined) },
    service: {
      readsIp: false,
      flagsOf: () => [rollout],
      stamp: (_p: Project, req: FlagsRequest) => ({ distinctId: req.distinctId, personVersion: state }) as unknown as Stamp,
      holds: (stamp: Stamp) => stamp.personVersion === state,
      evaluate: (): Evaluation => {
        evaluations++
        return {
          results: [{ flag: rollout, enabled: true, variant: null, reason: REASON, payload: null, failed: false }],
          errors: false,
        }
      },
    },
    surveys: NO_SURVEYS,
    clock: fixedClock(new Date('2024-05-01T00:00:00Z')),
    metrics: new Metrics(),
    decodeBody: async () => {
      throw new Error('a plain JSON body needs no general decoding')
    },
  })
  return {
    answers,
    evaluations: () => evaluations,
    change: () => state++,
  }
}

const call = (body: Record<string, unknown>, query: Record<string, string> = { v: '2' }): FlagsCall => ({
  url: '/flags',
  query,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(JSON.stringify(body)),
  socket: {},
})

describe('FlagAnswers', () => {
  it('answers flags v2 as bytes, then answers the same request from the kept bytes while its stamp holds', () => {
    const t = setup()
    const first = t.answers.answer('flags', call({ token: project.apiToken, distinct_id: 'u1' }))
    expect(Buffer.isBuffer(first)).toBe(true)
    const answer = JSON.parse(String(first)) as { flags: Record<string, { enabled: boolean }>; evaluatedAt: number; requestId: string }
    expect(answer.flags.rollout.enabled).toBe(true)
    expect(answer.evaluatedAt).toBe(Date.parse('2024-05-01T00:00:00Z'))
    const second = JSON.parse(String(t.answers.answer('flags', call({ token: project.apiToken, distinct_id: 'u1' })))) as typeof answer
    expect(second.flags).toEqual(answer.flags)
    expect(second.requestId).not.toBe(answer.requestId)
    expect(t.evaluations()).toBe(1)
    t.change()
    t.answers.answer('flags', call({ token: project.apiToken, distinct_id: 'u1' }))
    expect(t.evaluations()).toBe(2)
  })

  it('answers the same body in the shape each request asks for, however they alternate', () => {
    const t = setup()
    const body = { token: project.apiToken, distinct_id: 'u1' }
    for (let i = 0; i < 2; i++) {
      const v2 = JSON.parse(String(t.answers.answer('flags', call(body)))) as Record<string, unknown>
      expect(Object.keys(v2)).toContain('flags')
      expect(v2.featureFlags).toBeUndefined()
      const legacy = JSON.parse(String(t.answers.answer('flags', call(body, { v: '1' })))) as Record<string, unknown>
      expect(legacy.featureFlags).toEqual({ rollout: true })
      expect(legacy.flags).toBeUndefined()
      const overrides = JSON.parse(
        String(t.answers.answer('flags', call(body, { v: '2', only_use_override_person_properties: 'true' }))),
      ) as Record<string, unknown>
      expect(Object.keys(overrides)).toContain('flags')
    }
  })

  it('refuses an unknown project key before evaluating', () => {
    const t = setup()
    expect(() => t.answers.answer('flags', call({ token: 'phc_other', distinct_id: 'u1' }))).toThrow(/Project API key invalid/)
    expect(t.evaluations()).toBe(0)
  })

  it('includes the remote config on decide', () => {
    const t = setup()
    const answer = JSON.parse(String(t.answers.answer('decide', call({ token: project.apiToken, distinct_id: 'u1' }, {})))) as Record<
      string,
      unknown
    >
    expect(answer.featureFlags).toEqual(['rollout'])
    expect(answer.config).toEqual({ enable_collect_everything: true })
  })
})
