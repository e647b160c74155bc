// First start on an empty data directory: a default project and a personal key holding every scope.
import type { ProjectStore } from './store'

export interface BootstrapResult {
  projectId: number
  projectApiKey: string
  personalApiKey: string
}

export async function bootstrapIfEmpty(
  store: ProjectStore,
  keys: { projectApiKey: string | null; personalApiKey: string | null },
): Promise<BootstrapResult | null> {
  if (!store.isEmpty()) return null
  const project = await store.createProject({ id: 1, name: 'Default project', apiToken: keys.projectApiKey ?? undefined })
  const { value } = await store.createPersonalKey({ label: 'bootstrap', scopes: ['*'], value: keys.personalApiKey ?? undefined })
  return { projectId: project.id, projectApiKey: project.apiToken, personalApiKey: value }
}
