// The funnels editor's state: one query object and the edits the page makes to it (as trends-store.ts is
// the trends editor's). No DOM here: the unit tests run it in Node.
import type { PropertyFilter } from './api'
import type { StateStore } from './components/url-store'
import type { BreakdownEdits } from './components/insight-controls'
import { DEFAULT_FUNNEL, emptyStep, type Exclusion, type FunnelQuery, type FunnelStep } from './funnel-query'

/** What the page may change outside the steps, exclusions and breakdown, as they are. */
type Settings = Pick<
  FunnelQuery,
  'properties' | 'filterTestAccounts' | 'dateFrom' | 'dateTo' | 'interval' | 'orderType' | 'windowInterval' | 'windowUnit' | 'vizType'
>

/** A funnel has at least two steps: fewer is no funnel to come back to. */
export const MIN_STEPS = 2

export interface FunnelStore extends StateStore<FunnelQuery>, BreakdownEdits {
  addStep(): void
  removeStep(index: number): void
  /** Swaps a step with its neighbour (-1: up, 1: down). */
  moveStep(index: number, by: -1 | 1): void
  /** Event or action: the chosen id goes, since an event's name is no action's id. */
  setStepKind(index: number, kind: FunnelStep['kind']): void
  setStepEvent(index: number, id: string): void
  setStepFilters(index: number, filters: PropertyFilter[]): void
  addExclusion(): void
  setExclusion(index: number, patch: Partial<Exclusion>): void
  removeExclusion(index: number): void
  set(patch: Partial<Settings>): void
}

export function createFunnelStore(initial: FunnelQuery = DEFAULT_FUNNEL): FunnelStore {
  let state = initial
  const listeners = new Set<(query: FunnelQuery) => void>()
  const commit = (next: FunnelQuery) => {
    if (next === state) return
    state = next
    for (const listener of listeners) listener(state)
  }
  const editStep = (index: number, patch: Partial<FunnelStep>) => {
    if (!state.steps[index]) return
    commit({ ...state, steps: state.steps.map((s, i) => (i === index ? { ...s, ...patch } : s)) })
  }
  return {
    get: () => state,
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    replace: commit,
    addStep: () => commit({ ...state, steps: [...state.steps, emptyStep()] }),
    removeStep(index) {
      if (state.steps.length <= MIN_STEPS || !state.steps[index]) return
      const steps = state.steps.filter((_, i) => i !== index)
      // An exclusion keeps naming the same steps: those after the removed one move up; one that names it goes.
      const shift = (n: number) => (n > index ? n - 1 : n)
      const exclusions = state.exclusions
        .filter((e) => e.from !== index && e.to !== index)
        .map((e) => ({ ...e, from: shift(e.from), to: shift(e.to) }))
      commit({ ...state, steps, exclusions })
    },
    moveStep(index, by) {
      const other = index + by
      if (!state.steps[index] || !state.steps[other]) return
      const steps = [...state.steps]
      ;[steps[index], steps[other]] = [steps[other], steps[index]]
      commit({ ...state, steps })
    },
    setStepKind(index, kind) {
      if (state.steps[index]?.kind !== kind) editStep(index, { kind, id: '' })
    },
    setStepEvent: (index, id) => editStep(index, { id }),
    setStepFilters: (index, properties) => editStep(index, { properties }),
    addExclusion: () =>
      commit({ ...state, exclusions: [...state.exclusions, { event: '', from: 0, to: Math.max(1, state.steps.length - 1) }] }),
    setExclusion(index, patch) {
      if (!state.exclusions[index]) return
      commit({ ...state, exclusions: state.exclusions.map((e, i) => (i === index ? { ...e, ...patch } : e)) })
    },
    removeExclusion: (index) => commit({ ...state, exclusions: state.exclusions.filter((_, i) => i !== index) }),
    setBreakdownType(type) {
      if (type === state.breakdownType) return
      commit({ ...state, breakdownType: type, breakdown: null, breakdownGroupTypeIndex: type === 'group' ? 0 : null })
    },
    setBreakdown: (value) => commit({ ...state, breakdown: value === '' ? null : value }),
    setBreakdownGroupTypeIndex: (index) => commit({ ...state, breakdownGroupTypeIndex: index }),
    set: (patch) => commit({ ...state, ...patch }),
  }
}
