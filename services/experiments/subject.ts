// An experiment as the Query API's experiment kinds read it (query/kinds/experiments/subject.ts): its flag's key
// and variants joined in from the flags store.
import type { ExperimentDeps, ExperimentSubject } from '../query/kinds/experiments'
import type { FlagStore } from '../flags/store'
import type { ExperimentStore } from './store'

export function experimentLookup(experiments: ExperimentStore, flags: Pick<FlagStore, 'get'>): ExperimentDeps['experiments'] {
  return {
    async experiment(teamId: number, id: number): Promise<ExperimentSubject | undefined> {
      const e = await experiments.get(teamId, id)
      const flag = e ? flags.get(teamId, e.featureFlagId) : undefined
      if (!e || !flag) return undefined
      const group = flag.filters.aggregation_group_type_index
      return {
        id: e.id,
        name: e.name,
        flagKey: flag.key,
        variants: (flag.filters.multivariate?.variants ?? []).map((v) => ({ key: v.key, rollout_percentage: v.rollout_percentage })),
        aggregationGroup: typeof group === 'number' ? group : null,
        startDate: e.startDate,
        endDate: e.endDate,
        exposureCriteria: e.exposureCriteria,
        statsConfig: e.statsConfig,
      }
    },
  }
}
