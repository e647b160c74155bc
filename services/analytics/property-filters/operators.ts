// The one list of property-filter operators (PostHog's names), and where each can run: compiled to
// ClickHouse SQL (trends, actions, cohorts, the persons and events lists) or matched in memory by decide
// (flags). A filter is refused when its operator cannot run where it is used.

export type Evaluator = 'sql' | 'memory'

const BOTH = { sql: true, memory: true } as const
const SQL = { sql: true, memory: false } as const
const MEMORY = { sql: false, memory: true } as const

export const OPERATORS = {
  exact: BOTH,
  is_not: BOTH,
  icontains: BOTH,
  not_icontains: BOTH,
  regex: BOTH,
  not_regex: BOTH,
  gt: BOTH,
  gte: BOTH,
  lt: BOTH,
  lte: BOTH,
  between: BOTH,
  not_between: BOTH,
  is_set: BOTH,
  is_not_set: BOTH,
  is_date_before: BOTH,
  is_date_after: BOTH,
  is_date_exact: BOTH,
  /** Cohort membership (and, in SQL, a value list like exact / is_not). */
  in: BOTH,
  not_in: BOTH,
  /** Trends' names for gte / lte. */
  min: SQL,
  max: SQL,
  icontains_multi: MEMORY,
  not_icontains_multi: MEMORY,
  starts_with: MEMORY,
  not_starts_with: MEMORY,
  ends_with: MEMORY,
  not_ends_with: MEMORY,
  semver_eq: MEMORY,
  semver_neq: MEMORY,
  semver_gt: MEMORY,
  semver_gte: MEMORY,
  semver_lt: MEMORY,
  semver_lte: MEMORY,
  semver_tilde: MEMORY,
  semver_caret: MEMORY,
  semver_wildcard: MEMORY,
  /** A flag's dependency on another flag's value. */
  flag_evaluates_to: MEMORY,
} as const satisfies Record<string, { sql: boolean; memory: boolean }>

export type Operator = keyof typeof OPERATORS

/** The operators that can run in `where`, in the list's order. */
export function operatorsFor(where: Evaluator): Operator[] {
  return (Object.keys(OPERATORS) as Operator[]).filter((op) => OPERATORS[op][where])
}

export function runsIn(operator: string, where: Evaluator): operator is Operator {
  return Object.hasOwn(OPERATORS, operator) && OPERATORS[operator as Operator][where]
}
