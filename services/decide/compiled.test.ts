// The fast path decide takes must give exactly what the plain definition gives: the byte-assembled
// answers against JSON.stringify(flagsBody). (Operators are tested through matchProperty, which is the
// compiled matcher itself, in operators.test.ts.)
import { describe, expect, it } from 'vitest'
import { evaluateFlags, type EvaluationInput } from './evaluate'
import { flagsBody, flagsBodyParts, type Shape } from './responses'
import type { FeatureFlag } from '../flags/types'
import { flag, input } from './testing/flags'

describe('answers assembled from cached bytes', () => {
  const mv = {
    variants: [
      { key: 'control', rollout_percentage: 40 },
      { key: 'tést "q"', rollout_percentage: 40 },
      { key: 'c', rollout_percentage: 20 },
    ],
  }
  const flags: FeatureFlag[] = [
    flag('rollout', { groups: [{ properties: [], rollout_percentage: 40 }] }, { name: 'A "quoted" description' }),
    flag('mv', {
      groups: [{ properties: [], rollout_percentage: 80 }],
      multivariate: mv,
      payloads: { control: '{"a":1}', 'tést "q"': '"ünïcode \\u2028"' },
    }),
    flag(
      'bool-payload',
      { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }] }], payloads: { true: '[1,2,3]' } },
      { version: 7 },
    ),
    flag('123', {
      groups: [{ properties: [{ key: 'age', value: 'x', operator: 'gt', type: 'person' }] }, { properties: [], rollout_percentage: 50 }],
    }),
    flag('group', { aggregation_group_type_index: 0, groups: [{ properties: [], rollout_percentage: 50 }] }),
    flag('depends', { groups: [{ properties: [{ key: '999', type: 'flag', value: true, operator: 'flag_evaluates_to' }] }] }),
    flag('cohort', { groups: [{ properties: [{ key: 'id', type: 'cohort', value: 5 }] }] }),
    flag('holdout', { groups: [{ properties: [] }], holdout: { id: 3, exclusion_percentage: 30 }, multivariate: mv }),
    flag('off', { groups: [{ properties: [] }] }, { active: false }),
  ]
  const inputFor = (i: number): EvaluationInput =>
    input({
      distinctId: `user-${i}`,
      personUuid: null,
      personProperties: { distinct_id: `user-${i}`, plan: i % 2 ? 'pro' : 'free', age: i },
      groups: i % 3 ? { company: `c-${i}` } : {},
    })
  const shapes: Shape[] = ['decide_v1', 'decide_v2', 'legacy', 'flags_v2']

  it('parse to exactly flagsBody for every shape, uncached and cached', () => {
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 60; i++) {
        const results = [...evaluateFlags(flags, inputFor(i)).values()]
        const evaluation = { results, errors: results.some((r) => r.failed) }
        for (const shape of shapes) {
          const text = `{${Buffer.concat(flagsBodyParts(shape, evaluation)).toString('utf8')}}`
          expect(JSON.parse(text), `${shape} user-${i}`).toEqual(flagsBody(shape, evaluation))
        }
      }
    }
  })
})
