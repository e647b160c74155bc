import { describe, expect, it } from 'vitest'
import { evaluateFlags, type EvaluationInput } from './evaluate'
import { flagHash, holdoutHash } from './hash'
import type { FeatureFlag } from '../flags/types'
import { flag, input } from './testing/flags'
import type { CohortReader } from './cohorts'

const one = (f: FeatureFlag, i = input(), all: FeatureFlag[] = [f]) => evaluateFlags(all, i).get(f.key)!

describe('evaluation', () => {
  it('rollout uses hash <= percentage, and stored condition order decides', () => {
    const pct = flagHash('r', 'user-1') * 100
    expect(one(flag('r', { groups: [{ rollout_percentage: Math.ceil(pct) }] })).enabled).toBe(true)
    expect(one(flag('r', { groups: [{ rollout_percentage: Math.floor(pct) }] })).reason.code).toBe('out_of_rollout_bound')
    const f = flag('ordered', {
      groups: [
        { properties: [{ key: 'x', value: 1, type: 'person' }] },
        { rollout_percentage: 100, variant: 'b' },
        { rollout_percentage: 100, variant: 'a' },
      ],
      multivariate: {
        variants: [
          { key: 'a', rollout_percentage: 50 },
          { key: 'b', rollout_percentage: 50 },
        ],
      },
    })
    expect(one(f)).toMatchObject({ enabled: true, variant: 'b', reason: { code: 'condition_match', condition_index: 1 } })
  })

  it('an override naming no variant is ignored; the hash chooses', () => {
    const f = flag('mv', {
      groups: [{ variant: 'ghost' }],
      multivariate: {
        variants: [
          { key: 'a', rollout_percentage: 50 },
          { key: 'b', rollout_percentage: 50 },
        ],
      },
    })
    expect(one(f).variant).toBe(flagHash('mv', 'user-1', 'variant') < 0.5 ? 'a' : 'b')
  })

  it('variants summing below 100 can leave a matched flag enabled with no variant', () => {
    const h = flagHash('short', 'user-1', 'variant')
    const f = flag('short', { groups: [{}], multivariate: { variants: [{ key: 'a', rollout_percentage: Math.floor(h * 100) - 1 }] } })
    expect(one(f)).toMatchObject({ enabled: true, variant: null })
  })

  it('reports the best reason across groups and no_group_type for absent groups', () => {
    const f = flag('g', { aggregation_group_type_index: 0, groups: [{ rollout_percentage: 100 }] })
    expect(one(f).reason).toEqual({ code: 'no_group_type', condition_index: null, description: 'No group type' })
    const on = one(f, input({ groups: { company: 'acme' }, groupProperties: new Map([[0, { $group_key: 'acme' }]]) }))
    expect(on.enabled).toBe(true)
    const partial = flag('p', {
      groups: [{ properties: [{ key: 'plan', value: 'x', type: 'person' }] }, { aggregation_group_type_index: 0, rollout_percentage: 100 }],
    })
    expect(one(partial).reason.description).toBe(
      'No matching condition set (group conditions were not evaluated because no group type was provided)',
    )
  })

  it('holdouts put the same people out for every flag that uses them', () => {
    const inHoldout = holdoutHash('user-1') <= 0.5
    const f = flag('h', { groups: [{}], holdout: { id: 7, exclusion_percentage: 50 } })
    const r = one(f)
    if (inHoldout)
      expect(r).toMatchObject({ enabled: true, variant: 'holdout-7', reason: { code: 'holdout_condition_value', condition_index: null } })
    else expect(r.reason.code).toBe('condition_match')
    expect(one(flag('h2', { groups: [], holdout: { id: 7, exclusion_percentage: 100 } })).variant).toBe('holdout-7')
  })

  it('early access: $feature_enrollment/<key> decides when present', () => {
    const f = flag('beta', { feature_enrollment: true, groups: [{ rollout_percentage: 0 }] })
    expect(one(f, input({ personProperties: { '$feature_enrollment/beta': 'true' } }))).toMatchObject({
      enabled: true,
      reason: { code: 'super_condition_value' },
    })
    expect(one(f, input({ personProperties: { '$feature_enrollment/beta': false } })).enabled).toBe(false)
    expect(one(f).reason.code).toBe('out_of_rollout_bound')
  })

  it('flag dependencies, missing ones and cycles', () => {
    const base = flag('base', { groups: [{}], multivariate: { variants: [{ key: 'x', rollout_percentage: 100 }] } })
    const dep = flag('dep', {
      groups: [{ properties: [{ key: String(base.id), type: 'flag', operator: 'flag_evaluates_to', value: 'x' }] }],
    })
    const notDep = flag('not-dep', {
      groups: [{ properties: [{ key: String(base.id), type: 'flag', operator: 'flag_evaluates_to', value: false }] }],
    })
    const missing = flag('missing', {
      groups: [{ properties: [{ key: '99999', type: 'flag', operator: 'flag_evaluates_to', value: true }] }],
    })
    const results = evaluateFlags([base, dep, notDep, missing], input())
    expect(results.get('dep')!.enabled).toBe(true)
    expect(results.get('not-dep')!.enabled).toBe(false)
    expect(results.get('missing')).toMatchObject({ enabled: false, failed: true, reason: { code: 'missing_dependency' } })
    const a = flag('a', { groups: [] })
    const b = flag('b', { groups: [{ properties: [{ key: String(a.id), type: 'flag', operator: 'flag_evaluates_to', value: true }] }] })
    a.filters.groups = [{ properties: [{ key: String(b.id), type: 'flag', operator: 'flag_evaluates_to', value: true }] }]
    expect(evaluateFlags([a, b], input()).get('a')!.failed).toBe(true)
  })

  it('cohorts: dynamic ones match properties, static ones membership, unknown ones fail only their flag', () => {
    const cohorts: CohortReader = {
      get: (_t, id) =>
        id === 1
          ? {
              id: 1,
              isStatic: false,
              properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] }] },
            }
          : id === 2
            ? { id: 2, isStatic: true, properties: null }
            : undefined,
      isStaticMember: (_t, _id, uuid) => uuid === 'p-1',
      list: () => [],
      version: () => 0,
    }
    const dyn = flag('dyn', { groups: [{ properties: [{ key: 'id', type: 'cohort', value: 1 }] }] })
    const stat = flag('stat', { groups: [{ properties: [{ key: 'id', type: 'cohort', value: 2, operator: 'not_in' }] }] })
    const gone = flag('gone', { groups: [{ properties: [{ key: 'id', type: 'cohort', value: 3 }] }] })
    const ok = flag('ok', { groups: [{}] })
    const r = evaluateFlags([dyn, stat, gone, ok], input({ cohorts, personProperties: { plan: 'pro' } }))
    expect(r.get('dyn')!.enabled).toBe(true)
    expect(r.get('stat')!.enabled).toBe(false)
    expect(r.get('gone')).toMatchObject({ enabled: false, failed: true })
    expect(r.get('ok')!.enabled).toBe(true)
  })

  it('experience continuity hashes the stored override, else the anonymous id', () => {
    const f = flag(
      'ec',
      {
        groups: [{}],
        multivariate: {
          variants: [
            { key: 'a', rollout_percentage: 50 },
            { key: 'b', rollout_percentage: 50 },
          ],
        },
      },
      { ensureExperienceContinuity: true },
    )
    const pick = (id: string) => (flagHash('ec', id, 'variant') < 0.5 ? 'a' : 'b')
    expect(one(f, input({ anonDistinctId: 'anon-9' })).variant).toBe(pick('anon-9'))
    expect(one(f, input({ anonDistinctId: 'anon-9', hashKeyOverrides: { ec: 'first-anon' } })).variant).toBe(pick('first-anon'))
  })

  it('device-id bucketing without a device id is out of rollout', () => {
    const f = flag('dev', { groups: [{ rollout_percentage: 50 }] }, { bucketingIdentifier: 'device_id' })
    expect(one(f).enabled).toBe(false)
    expect(one(f, input({ deviceId: 'd1' })).enabled).toBe(flagHash('dev', 'd1') <= 0.5)
  })
})
