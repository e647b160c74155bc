// What the experiment kinds read of an experiment: its flag's key and variants, its dates, its exposure criteria
// and statistics settings. The experiments feature provides the lookup (runtime wires it), so the kinds never
// import it; the shape here is the contract.
import type { ActionStore } from '../../../actions/store'
import type { CohortStore } from '../../../cohorts/store'
import type { EventReadsDeps } from '../../common/event-reads'

export interface ExperimentSubject {
  id: number
  name: string
  /** The key of the flag it runs on. */
  flagKey: string
  /** The flag's variants in their order (control among them). */
  variants: Array<{ key: string; rollout_percentage: number }>
  /** The flag's group type when it aggregates by groups (null: persons). */
  aggregationGroup: number | null
  /** Launch and stop (ISO instants); null: not yet. */
  startDate: string | null
  endDate: string | null
  exposureCriteria: Record<string, unknown>
  statsConfig: Record<string, unknown>
}

export interface ExperimentDeps extends EventReadsDeps {
  actions: Pick<ActionStore, 'list'>
  cohorts: Pick<CohortStore, 'list'>
  /** The project's experiment by id (deleted ones: undefined). */
  experiments: { experiment(teamId: number, id: number): Promise<ExperimentSubject | undefined> }
}
