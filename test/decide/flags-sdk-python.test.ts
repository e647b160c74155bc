// posthog-python (the real package from PyPI, in a venv) against Wren's flags: remote evaluation
// (/flags) and local evaluation (definitions polled with a personal API key) must give, for many
// distinct ids, the same values and payloads as Wren's own decide v3.
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { posthogPython, pythonUnavailable, runPythonJson } from '../support/python'
import { skipReason } from '../support/skip'

const script = path.resolve(import.meta.dirname, '../fixtures/posthog_flags.py')
const unavailable = skipReason('flags-sdk-python', pythonUnavailable())

type FlagValue = boolean | string
interface PyResult {
  distinct_id: string
  all: Record<string, FlagValue>
  all_payloads: Record<string, unknown>
  flags: Record<string, FlagValue | null>
  payloads: Record<string, unknown>
}
interface PyOutput {
  version: string
  local: boolean
  loaded: number
  errors: string[]
  results: PyResult[]
}

const KEYS = ['rollout-30', 'multivariate', 'plan-gated', 'with-payload', 'override']
const plan = (i: number) => ['free', 'pro', 'team'][i % 3]
const email = (id: string, i: number) => (i % 5 === 0 ? `${id}@example.com` : `${id}@other.org`)

describe.skipIf(unavailable !== null)(`posthog-python with Wren flags${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let t: TestWren
  let python: string
  const ids = Array.from({ length: 150 }, (_, i) => `py-user-${i}`)

  beforeAll(async () => {
    ;[python, t] = await Promise.all([posthogPython(), startWren()])
    const call = api(t)
    const base = `/api/projects/${t.projectId}/feature_flags/`
    const created = await Promise.all([
      call('POST', base, { key: 'rollout-30', filters: { groups: [{ properties: [], rollout_percentage: 30 }] } }),
      call('POST', base, {
        key: 'multivariate',
        filters: {
          groups: [{ properties: [], rollout_percentage: 80 }],
          multivariate: {
            variants: [
              { key: 'control', rollout_percentage: 34 },
              { key: 'test-a', rollout_percentage: 33 },
              { key: 'test-b', rollout_percentage: 33 },
            ],
          },
          payloads: { control: '{"color":"blue"}', 'test-a': '{"color":"red","sizes":[1,2]}' },
        },
      }),
      call('POST', base, {
        key: 'plan-gated',
        filters: {
          groups: [
            { properties: [{ key: 'plan', value: ['pro', 'team'], operator: 'exact', type: 'person' }], rollout_percentage: 50 },
            { properties: [{ key: 'email', value: '@example.com', operator: 'icontains', type: 'person' }], rollout_percentage: 100 },
          ],
        },
      }),
      call('POST', base, {
        key: 'with-payload',
        filters: { groups: [{ properties: [], rollout_percentage: 60 }], payloads: { true: '{"limit":10}' } },
      }),
      call('POST', base, {
        key: 'override',
        filters: {
          groups: [
            { properties: [{ key: 'plan', value: 'team', operator: 'exact', type: 'person' }], rollout_percentage: 100, variant: 'beta' },
            { properties: [], rollout_percentage: 50 },
          ],
          multivariate: {
            variants: [
              { key: 'alpha', rollout_percentage: 70 },
              { key: 'beta', rollout_percentage: 30 },
            ],
          },
          payloads: { beta: '"just a string"' },
        },
      }),
    ])
    for (const r of created) expect(r.status, r.text).toBe(201)
    await captureBatch(
      t,
      ids.map((id, i) => ({ event: '$identify', distinct_id: id, properties: { $set: { plan: plan(i), email: email(id, i) } } })),
    )
    await drained(t.wren)
  }, 600_000)
  afterAll(async () => {
    await t?.close()
  })

  const decide = async (distinctId: string) => {
    const res = await fetch(`${t.url}/decide/?v=3`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: t.projectKey, distinct_id: distinctId }),
    })
    expect(res.status).toBe(200)
    return (await res.json()) as {
      featureFlags: Record<string, FlagValue>
      featureFlagPayloads: Record<string, string>
      errorsWhileComputingFlags: boolean
    }
  }

  const expectAgreement = async (out: PyOutput) => {
    expect(out.errors).toEqual([])
    expect(out.results).toHaveLength(ids.length)
    const seen = new Set<string>()
    for (const r of out.results) {
      const expected = await decide(r.distinct_id)
      expect(expected.errorsWhileComputingFlags).toBe(false)
      expect(r.all, r.distinct_id).toEqual(expected.featureFlags)
      // The bulk getter keeps payloads as the JSON text decide sent; get_feature_flag_payload decodes them.
      expect(r.all_payloads, r.distinct_id).toEqual(expected.featureFlagPayloads)
      const payloads = Object.fromEntries(Object.entries(expected.featureFlagPayloads).map(([k, v]) => [k, JSON.parse(v) as unknown]))
      for (const key of KEYS) {
        expect(r.flags[key], `${r.distinct_id} ${key}`).toEqual(expected.featureFlags[key])
        expect(r.payloads[key] ?? null, `${r.distinct_id} ${key} payload`).toEqual(payloads[key] ?? null)
        seen.add(`${key}=${String(expected.featureFlags[key])}`)
      }
    }
    // The population really splits: every variant and both sides of every rollout occur.
    for (const v of [
      'rollout-30=true',
      'rollout-30=false',
      'multivariate=control',
      'multivariate=test-a',
      'multivariate=test-b',
      'multivariate=false',
      'plan-gated=true',
      'plan-gated=false',
      'with-payload=true',
      'with-payload=false',
      'override=alpha',
      'override=beta',
      'override=false',
    ]) {
      expect(seen, v).toContain(v)
    }
  }

  it('remote evaluation through /flags agrees with decide v3, payloads included', async () => {
    const out = await runPythonJson<PyOutput>(python, script, {
      host: t.url,
      api_key: t.projectKey,
      keys: KEYS,
      cases: ids.map((distinct_id) => ({ distinct_id })),
    })
    expect(out.local).toBe(false)
    await expectAgreement(out)
  })

  it('local evaluation with a personal API key agrees with decide v3', async () => {
    const cases = ids.map((distinct_id, i) => ({ distinct_id, person_properties: { plan: plan(i), email: email(distinct_id, i) } }))
    const out = await runPythonJson<PyOutput>(python, script, {
      host: t.url,
      api_key: t.projectKey,
      personal_api_key: t.personalKey,
      keys: KEYS,
      cases,
    })
    expect(out.local).toBe(true)
    expect(out.loaded).toBe(KEYS.length)
    await expectAgreement(out)
  })
})
