// What every page knows: the signed-in key's scopes and the current project.
import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import { allows, apiPath } from './api'
import type { Me, Project } from './answers'

export interface Session {
  project: Project
  projects: Project[]
  scopes: string[] | null
  /** The signed-in user (null: a key session whose key may not read it). */
  me: Me | null
  /** Re-reads the projects (after the settings page changes one). */
  refreshProjects: () => void
}

export const SessionContext = createContext<Session | null>(null)

export function useSession(): Session & { can: (scope: string) => boolean; path: (p: string) => string; base: string } {
  const session = useContext(SessionContext)
  if (!session) throw new Error('useSession outside a signed-in page')
  return {
    ...session,
    can: (scope) => allows(session.scopes, scope),
    path: (p) => apiPath(session.project.id, p),
    base: `/project/${session.project.id}`,
  }
}
