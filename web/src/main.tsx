// Wren's web app: sign in with a personal API key, pick a project, and the pages. Everything it shows comes
// from Wren's public API.
import 'uplot/dist/uPlot.min.css'
import './styles.css'
import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { ApiError, allows, request, storeKey, storedKey } from './api'
import type { KeyInfo, Paginated, Project } from './answers'
import { ErrorBox, Loading } from './components/feedback'
import { asApiError } from './components/load'
import { navigate, onLinkClick, parsePath, usePlace } from './router'
import { SessionContext, type Session } from './session'
import { INSIGHT_KINDS } from './insight-kinds'
import { EventsPage } from './pages/events'
import { PersonPage, PersonsPage } from './pages/persons'
import { FlagPage, FlagsPage } from './pages/flags'
import { CohortPage, CohortsPage } from './pages/cohorts'
import { ActionPage, ActionsPage } from './pages/actions'
import { RecordingsPage } from './pages/recordings'
import { SettingsPage } from './pages/settings'
import { KeysPage } from './pages/keys'
import { DashboardPage, DashboardsPage, HomePage } from './pages/dashboards'
import { InsightPage, SavedInsightsPage } from './pages/insights'
import { SqlPage } from './pages/sql'

/**
 * The pages, in the menu's order, with the scope each needs (the menu hides what the key cannot read). The app
 * opens on the first the key can read: Home, the project's primary dashboard, for a key with dashboard:read and
 * project:read (which dashboard is Home is the project's to say: a key that cannot read the project would find no
 * Home, so it opens on Dashboards or the next page it can read).
 */
const SECTIONS = [
  { section: 'home', title: 'Home', scope: 'dashboard:read', also: 'project:read' },
  { section: 'dashboards', title: 'Dashboards', scope: 'dashboard:read' },
  { section: 'trends', title: 'Trends', scope: 'insight:read' },
  // The other insight editors are reached through the insight type switch, not the menu: Trends stands for them all.
  ...INSIGHT_KINDS.filter((k) => k.section !== 'trends').map((k) => ({
    section: k.section,
    title: k.title,
    scope: 'insight:read',
    under: 'trends',
  })),
  { section: 'insights', title: 'Saved insights', scope: 'insight:read' },
  { section: 'events', title: 'Events', scope: 'query:read' },
  { section: 'sql', title: 'SQL', scope: 'query:read' },
  { section: 'persons', title: 'Persons', scope: 'person:read' },
  { section: 'feature_flags', title: 'Feature flags', scope: 'feature_flag:read' },
  { section: 'cohorts', title: 'Cohorts', scope: 'cohort:read' },
  { section: 'actions', title: 'Actions', scope: 'action:read' },
  { section: 'recordings', title: 'Recordings', scope: 'session_recording:read' },
  { section: 'settings', title: 'Settings', scope: 'project:read' },
  // Listing, creating and revoking keys needs `*` (services/projects/key-routes.ts).
  { section: 'keys', title: 'API keys', scope: '*' },
] satisfies Array<{ section: string; title: string; scope: string; also?: string; under?: string }>

/** The scope a key lacks for a page (null: it may read it). */
function missingScope(scopes: string[] | null, page: (typeof SECTIONS)[number]): string | null {
  const needs: string[] = 'also' in page && page.also ? [page.scope, page.also] : [page.scope]
  return needs.find((scope) => !allows(scopes, scope)) ?? null
}

interface SignedIn {
  key: string
  projects: Project[]
  scopes: string[] | null
}

/** Any key Wren takes signs in: its own info says what it may do, and the projects it reaches. */
async function signIn(key: string): Promise<SignedIn> {
  // Every key may read itself, so this refuses only a key Wren does not take (401, with the API's reason).
  const me = await request<KeyInfo>('GET', '/api/personal_api_keys/@current/', undefined, key)
  // The projects list pages (100 by default); 1,000 at once is its most.
  const projects = allows(me.scopes, 'project:read')
    ? (await request<Paginated<Project>>('GET', '/api/projects/?limit=1000', undefined, key)).results
    : projectsOfKey(me)
  if (!projects.length) throw new ApiError(403, 'This key reaches no project.', 'permission_denied', null)
  return { key, projects, scopes: me.scopes }
}

/**
 * The projects of a key that may not read projects (no project:read): the ones it is limited to, known by
 * id alone. A key limited to none reaches every project, and its `@current` is the lowest id: 1, as project
 * ids start at 1 and Wren never deletes a project.
 */
function projectsOfKey(me: KeyInfo): Project[] {
  const ids = me.scoped_teams.length ? me.scoped_teams : [1]
  return ids.map((id) => ({ id, uuid: null, name: `Project ${id}`, api_token: '', timezone: 'UTC', created_at: me.created_at }))
}

function SignIn({ error, onSignedIn }: { error: ApiError | null; onSignedIn: (s: SignedIn) => void }) {
  const [key, setKey] = useState('')
  const [failure, setFailure] = useState<ApiError | null>(error)
  const [busy, setBusy] = useState(false)
  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setFailure(null)
    try {
      const signed = await signIn(key.trim())
      storeKey(signed.key)
      onSignedIn(signed)
    } catch (e) {
      setFailure(asApiError(e))
    } finally {
      setBusy(false)
    }
  }
  return (
    <main class="signin">
      <form onSubmit={submit} class="card">
        <h1>
          <span class="logo">◆</span> Wren
        </h1>
        <p>Sign in with a personal API key. It stays in this browser (local storage) and goes only to this Wren.</p>
        <label for="key">Personal API key</label>
        <input
          id="key"
          name="key"
          type="password"
          autocomplete="off"
          placeholder="phx_…"
          required
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <ErrorBox error={failure} />
        <p class="muted small">
          No key yet? <code>npm start</code> prints the first one; a key with the <code>*</code> scope makes more on the API keys page.
        </p>
      </form>
    </main>
  )
}

function App() {
  const place = usePlace()
  const [signed, setSigned] = useState<SignedIn | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const [checking, setChecking] = useState(() => storedKey() !== null)

  const load = (key: string) =>
    signIn(key).then(
      (s) => {
        setSigned(s)
        setError(null)
      },
      (e: unknown) => {
        // A key Wren refuses is dropped; anything else (Wren down) keeps it for the next try.
        const failure = asApiError(e)
        if (failure.status === 401 || failure.status === 403) storeKey(null)
        setSigned(null)
        setError(failure)
      },
    )
  useEffect(() => {
    const key = storedKey()
    if (key) load(key).finally(() => setChecking(false))
  }, [])

  const { project: projectId, section, rest } = parsePath(place.path)
  const project = signed ? (signed.projects.find((p) => p.id === projectId) ?? null) : null
  const firstSection = signed ? (SECTIONS.find((s) => missingScope(signed.scopes, s) === null)?.section ?? 'settings') : 'trends'
  // The menu, folded behind its button on a narrow window: folded again by a click on any of its links.
  const [menuOpen, setMenuOpen] = useState(false)
  useEffect(() => {
    if (!signed) return
    if (!project) navigate(`/project/${signed.projects[0].id}/${firstSection}`, { replace: true })
    else if (!section) navigate(`/project/${project.id}/${firstSection}`, { replace: true })
  }, [signed, project, section])

  if (checking) return <Loading />
  if (!signed) return <SignIn error={error} onSignedIn={(s) => setSigned(s)} />
  if (!project || !section) return <Loading />

  const session: Session = {
    project,
    projects: signed.projects,
    scopes: signed.scopes,
    refreshProjects: () => load(signed.key),
  }
  const signOut = () => {
    storeKey(null)
    setSigned(null)
    setError(null)
    navigate('/')
  }
  const switchProject = (id: string) => navigate(`/project/${id}/${section}`)
  const known = SECTIONS.find((s) => s.section === section)
  const menuSection = known && 'under' in known ? known.under : section
  const lacking = known ? missingScope(signed.scopes, known) : null
  return (
    <SessionContext.Provider value={session}>
      <div class="shell" onClick={onLinkClick}>
        <header class="topbar">
          <a class="brand" href={`/project/${project.id}/${firstSection}`}>
            <span class="logo">◆</span> Wren
          </a>
          <label class="project-switcher">
            <span class="sr-only">Project</span>
            <select aria-label="Project" value={String(project.id)} onChange={(e) => switchProject(e.currentTarget.value)}>
              {signed.projects.map((p) => (
                <option value={String(p.id)}>{p.name}</option>
              ))}
            </select>
          </label>
          <button type="button" class="secondary small signout" onClick={signOut}>
            Sign out
          </button>
        </header>
        <nav class={menuOpen ? 'menu open' : 'menu'} aria-label="Pages">
          {/* A narrow window shows this button, naming the page, in place of the row of links (styles.css). */}
          <button
            type="button"
            class="menu-toggle"
            aria-expanded={menuOpen}
            aria-controls="menu-links"
            onClick={() => setMenuOpen(!menuOpen)}
          >
            <span aria-hidden="true">☰</span> {known?.title ?? 'Menu'}
          </button>
          <div class="menu-links" id="menu-links" onClick={() => setMenuOpen(false)}>
            {SECTIONS.filter((s) => missingScope(signed.scopes, s) === null && !('under' in s)).map((s) => (
              <a
                href={`/project/${project.id}/${s.section}`}
                class={s.section === menuSection ? 'active' : ''}
                aria-current={s.section === section ? 'page' : undefined}
              >
                {s.title}
              </a>
            ))}
          </div>
        </nav>
        <main class="content" key={`${project.id}/${section}/${rest[0] ?? ''}`}>
          {known && lacking ? (
            <ErrorBox
              error={
                new ApiError(403, `This key lacks the ${lacking} scope that the ${known.title} page needs.`, 'permission_denied', null)
              }
            />
          ) : (
            <Page section={section} rest={rest} search={place.search} />
          )}
        </main>
      </div>
    </SessionContext.Provider>
  )
}

function Page({ section, rest, search }: { section: string; rest: string[]; search: string }) {
  const kind = INSIGHT_KINDS.find((k) => k.section === section)
  if (kind) return <kind.Editor search={search} />
  switch (section) {
    case 'home':
      return <HomePage />
    case 'dashboards':
      return rest[0] ? <DashboardPage id={rest[0]} /> : <DashboardsPage />
    case 'insights':
      return rest[0] ? <InsightPage id={rest[0]} search={search} /> : <SavedInsightsPage />
    case 'sql':
      return <SqlPage search={search} />
    case 'events':
      return <EventsPage search={search} />
    case 'persons':
      return rest[0] ? <PersonPage id={rest[0]} /> : <PersonsPage search={search} />
    case 'feature_flags':
      return rest[0] ? <FlagPage id={rest[0]} /> : <FlagsPage />
    case 'cohorts':
      return rest[0] ? <CohortPage id={rest[0]} /> : <CohortsPage />
    case 'actions':
      return rest[0] ? <ActionPage id={rest[0]} /> : <ActionsPage />
    case 'recordings':
      return <RecordingsPage search={search} />
    case 'settings':
      return <SettingsPage />
    case 'keys':
      return <KeysPage />
    default:
      return <ErrorBox error={new ApiError(404, `There is no page called '${section}'.`, 'not_found', null)} />
  }
}

const root = document.getElementById('app')!
// The page's "Loading Wren…" line is its own markup, not Preact's: cleared, or it stays above the app.
root.replaceChildren()
render(<App />, root)
