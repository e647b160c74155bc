// The definitions an insight's query names, loaded as every insight kind loads them: the actions of its
// series (and exclusions), a 400 for an id that is not an action of the project; and the project's cohorts,
// only when something in the query refers to one.
import type { PropertyGroup } from '../../analytics/property-filters/parse'
import type { Action, ActionStore } from '../../actions/store'
import { cohortIdsOfAction } from '../../actions/match'
import type { Cohort, CohortStore } from '../../cohorts/store'
import { cohortIdsIn } from '../../cohorts/membership'
import { wrenError } from '../../platform/errors'
import type { Project } from '../../platform/tenancy'
import type { SeriesEntity } from './series'
import { withTestAccountFilters } from './test-accounts'

/** The actions `entities` name, deleted ones included; an id that is not a positive integer or not the project's is a 400 on `attr`. */
export async function entityActions(
  deps: { actions: Pick<ActionStore, 'list'> },
  project: Project,
  entities: SeriesEntity[],
  attr: string,
): Promise<Map<number, Action>> {
  const named = entities.filter((s) => s.kind === 'actions')
  const bad = named.find((s) => !(Number.isSafeInteger(Number(s.id)) && Number(s.id) > 0))
  if (bad) throw wrenError('invalid_input', `Action id must be a positive integer, got '${String(bad.id)}'.`, attr)
  const ids = [...new Set(named.map((s) => Number(s.id)))]
  const found = new Map<number, Action>()
  if (ids.length) for (const a of await deps.actions.list(project.id, { ids, includeDeleted: true })) found.set(a.id, a)
  for (const id of ids) if (!found.has(id)) throw wrenError('invalid_input', `Action ${id} does not exist in this project.`, attr)
  return found
}

/** The project's cohorts by id when the query refers to one (its filters, its entities', a cohort breakdown, its actions); else none. */
async function cohortsNamed(
  deps: { cohorts: Pick<CohortStore, 'list'> },
  project: Project,
  named: { globalProperties: PropertyGroup; entities: SeriesEntity[]; breakdownType: string; actions: Iterable<Action> },
): Promise<Map<number, Cohort>> {
  const needed =
    cohortIdsIn(named.globalProperties).length > 0 ||
    named.entities.some((s) => cohortIdsIn(s.properties).length > 0) ||
    named.breakdownType === 'cohort' ||
    [...named.actions].some((a) => cohortIdsOfAction(a).length > 0)
  return needed ? new Map((await deps.cohorts.list(project.id)).map((c) => [c.id, c] as const)) : new Map()
}

/** What a query resolves besides itself and the data: its filters (with test accounts), its actions, its cohorts. */
export interface QueryDefinitions {
  /** The query's properties, with the project's test-account filters when it asks for them. */
  globalProperties: PropertyGroup
  /** The actions its entities name (with `dropDeleted`, the deleted ones left out). */
  actions: Map<number, Action>
  /** Every cohort a filter, an entity, an action or the breakdown could reach, by id. */
  cohorts: Map<number, Cohort>
}

/**
 * The definitions every insight kind reads: an action id not of the project is a 400 on `attr`. With
 * `dropDeleted`, a deleted action's entities are dropped (their cohorts are not read).
 */
export async function queryDefinitions(
  deps: { actions: Pick<ActionStore, 'list'>; cohorts: Pick<CohortStore, 'list'> },
  project: Project,
  query: {
    properties: PropertyGroup
    filterTestAccounts: boolean
    entities: SeriesEntity[]
    attr: string
    breakdownType: string
    dropDeleted?: boolean
  },
): Promise<QueryDefinitions> {
  const globalProperties = withTestAccountFilters(project, query.properties, query.filterTestAccounts)
  let actions = await entityActions(deps, project, query.entities, query.attr)
  let entities = query.entities
  if (query.dropDeleted) {
    actions = new Map([...actions].filter(([, a]) => !a.deleted))
    entities = entities.filter((s) => s.kind === 'events' || actions.has(Number(s.id)))
  }
  const cohorts = await cohortsNamed(deps, project, {
    globalProperties,
    entities,
    breakdownType: query.breakdownType,
    actions: actions.values(),
  })
  return { globalProperties, actions, cohorts }
}
