// First start on an empty data directory: a default project and a personal key holding every scope.
import type { ProjectStore } from './store'

export interface BootstrapResult {
  projectId: number
  projectApiKey: string
  personalApiKey: string
}

/**
 * The key is stored before the project: the project is what tells another process, starting at the same time,
 * that the installation is made. One that finds the project at its load (and so makes none) finds the key too,
 * instead of answering 401 to it until the key's change reaches it through the log.
 */
export async function bootstrapIfEmpty(
  store: ProjectStore,
  keys: { projectApiKey: string | null; personalApiKey: string | null },
): Promise<BootstrapResult | null> {
  if (!store.isEmpty()) return null
  const { value } = await store.createPersonalKey({ label: 'bootstrap', scopes: ['*'], value: keys.personalApiKey ?? undefined })
  const project = await store.createProject({ id: 1, name: 'Default project', apiToken: keys.projectApiKey ?? undefined })
  return { projectId: project.id, projectApiKey: project.apiToken, personalApiKey: value }
}
