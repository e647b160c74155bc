// Surveys' view of feature flags (surveys/flags.ts), from the flag store and flag management: surveys do not
// import flags (features of one floor), the runtime hands them this.
import type { FlagStore } from '../flags/store'
import { FlagManagement } from '../flags/service'
import { minimalFlag } from '../flags/serialize'
import type { SurveyFlags } from '../surveys/flags'

export function surveyFlags(store: FlagStore, cohorts: { list(teamId: number): Promise<Array<{ id: number }>> }): SurveyFlags {
  const management = new FlagManagement(store, cohorts)
  const live = (teamId: number, id: number) => {
    const flag = store.get(teamId, id)
    return flag && !flag.deleted ? flag : undefined
  }
  return {
    minimal: (teamId, id) => {
      const flag = live(teamId, id)
      return flag ? { ...minimalFlag(flag), key: flag.key } : null
    },
    variants: (teamId, id) => {
      const flag = live(teamId, id)
      return flag ? (flag.filters.multivariate?.variants ?? []).map((v) => v.key) : null
    },
    create: async (teamId, flag, actor) => (await management.create(teamId, flag, actor)).id,
    update: async (teamId, id, change, actor) => {
      await management.update(teamId, String(id), change, actor)
    },
  }
}
