// The project's test-account filters (its settings' test_account_filters), added to a query's properties
// when it asks for them (filterTestAccounts): one rule for every kind.
import { parsePropertyGroup, type PropertyGroup } from '../../analytics/property-filters/parse'
import type { Project } from '../../platform/tenancy'

export function withTestAccountFilters(project: Project, properties: PropertyGroup, filterTestAccounts: boolean): PropertyGroup {
  if (!filterTestAccounts) return properties
  const testFilters = parsePropertyGroup(project.settings.test_account_filters ?? [], 'test_account_filters')
  return testFilters.values.length ? { type: 'AND', values: [properties, testFilters] } : properties
}
