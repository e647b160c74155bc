// PostHog's TestClickhousePathsEdgeValidation (test_paths_query_runner_ee.py): which edges validate_results keeps.
import { describe, expect, it } from 'vitest'
import { reachable } from './compute'

const edge = ([source, target]: [string, string]) => ({ source, target })
const BASIC_PATH: Array<[string, string]> = [
  ['1_a', '2_b'],
  ['2_b', '3_c'],
  ['3_c', '4_d'],
]
const BASIC_PATH_2: Array<[string, string]> = [
  ['1_x', '2_y'],
  ['2_y', '3_z'],
]
const kept = (list: Array<[string, string]>) => reachable(list.map(edge)).map((e) => [e.source, e.target])

describe('paths: edges reachable from a first step', () => {
  it('test_basic_forest: two paths are kept whole', () => {
    expect(kept([...BASIC_PATH, ...BASIC_PATH_2])).toEqual([...BASIC_PATH, ...BASIC_PATH_2])
  })

  it('test_basic_forest_with_dangling_edges: edges with no way in are dropped', () => {
    expect(kept([...BASIC_PATH, ...BASIC_PATH_2, ['2_w', '3_z'], ['3_x', '4_d'], ['2_xxx', '3_yyy']])).toEqual([
      ...BASIC_PATH,
      ...BASIC_PATH_2,
    ])
  })

  it('test_basic_forest_with_dangling_and_cross_edges: a cross edge from a reached step is kept', () => {
    expect(kept([...BASIC_PATH, ...BASIC_PATH_2, ['2_w', '3_z'], ['3_x', '4_d'], ['2_y', '3_c']])).toEqual([
      ...BASIC_PATH,
      ...BASIC_PATH_2,
      ['2_y', '3_c'],
    ])
  })

  it('test_no_start_point: a path without its first edge is dropped', () => {
    expect(kept([...BASIC_PATH.slice(1), ...BASIC_PATH_2, ['2_w', '3_z'], ['3_x', '4_d']])).toEqual(BASIC_PATH_2)
  })
})
