// Wren's web app: sign in with a personal API key, pick a project, and the pages. Everything it shows comes
// from Wren's public API.
import 'uplot/dist/uPlot.min.css'
import './styles.css'
import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { ApiError, allows, get, post } from './api'
import type { KeyInfo, Me, Paginated, Project } from './answers'
import { ErrorBox, Loading, SignInCard } from './components/feedback'
import { asApiError } from './components/load'
import { navigate, onLinkClick, parsePath, usePlace } from './router'
import { SessionContext, type Session } from './session'
import { INSIGHT_KINDS } from './insight-kinds'
import { EventsPage } from './pages/events'
import { PersonPage, PersonsPage } from './pages/persons'
import { FlagPage, FlagsPage } from './pages/flags'
import { ExperimentPage, ExperimentsPage } from './pages/experiments'
import { CohortPage, CohortsPage } from './pages/cohorts'
import { ActionPage, ActionsPage } from './pages/actions'
import { RecordingsPage } from './pages/recordings'
import { SettingsPage } from './pages/settings'
import { KeysPage } from './pages/keys'
import { AccountPage, JoinPage, MembersPage } from './pages/account'
import { DashboardPage, DashboardsPage, HomePage } from './pages/dashboards'
import { InsightPage, SavedInsightsPage } from './pages/insights'
import { SqlPage } from './pages/sql'
import { SurveyPage, SurveysPage } from './pages/surveys'

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
  { section: 'experiments', title: 'Experiments', scope: 'experiment:read' },
  { section: 'surveys', title: 'Surveys', scope: 'survey:read' },
  { section: 'cohorts', title: 'Cohorts', scope: 'cohort:read' },
  { section: 'actions', title: 'Actions', scope: 'action:read' },
  { section: 'recordings', title: 'Recordings', scope: 'session_recording:read' },
  { section: 'settings', title: 'Settings', scope: 'project:read' },
  { section: 'members', title: 'Members', scope: 'organization_member:read' },
  { section: 'account', title: 'Account', scope: 'user:read' },
  // A user signed in with a password manages their own keys; through a key, managing keys needs `*` (services/projects/key-routes.ts).
  { section: 'keys', title: 'API keys', scope: '*' },
] satisfies Array<{ section: string; title: string; scope: string; also?: string; under?: string }>

/** The scope a key lacks for a page (null: it may read it). */
function missingScope(scopes: string[] | null, page: (typeof SECTIONS)[number]): string | null {
  const needs: string[] = 'also' in page && page.also ? [page.scope, page.also] : [page.scope]
  return needs.find((scope) => !allows(scopes, scope)) ?? null
}

interface SignedIn {
  /** Who is signed in (null: a key session whose key may not read its user). */
  me: Me | null
  projects: Project[]
  scopes: string[] | null
}

/**
 * The signed-in session, as the cookie sign-in set says: its user (GET /api/users/@me/, which names the
 * projects it reaches) and what it may do. A session opened with a key that lacks user:read reads the key
 * instead (any key reads itself). Refused (401): nobody is signed in.
 */
async function loadSession(): Promise<SignedIn> {
  let me: Me | null = null
  let scopes: string[]
  try {
    me = await get<Me>('/api/users/@me/')
    scopes = me.scopes
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 403) throw error
    const key = await get<KeyInfo>('/api/personal_api_keys/@current/')
    scopes = key.scopes
    return { me, scopes, projects: allows(scopes, 'project:read') ? await projectList() : projectsOfKey(key) }
  }
  const projects = allows(scopes, 'project:read') ? await projectList() : (me.organization.teams as unknown as Project[])
  if (!projects.length) throw new ApiError(403, 'You reach no project.', 'permission_denied', null)
  return { me, projects, scopes }
}

// The projects list pages (100 by default); 1,000 at once is its most.
const projectList = async () => (await get<Paginated<Project>>('/api/projects/?limit=1000')).results

/**
 * The projects of a key that may read neither its user nor projects: the ones it is limited to, known by id
 * alone. A key limited to none reaches every project, and its `@current` is the lowest id: 1, as project ids
 * start at 1 and Wren never deletes a project.
 */
function projectsOfKey(me: KeyInfo): Project[] {
  const ids = me.scoped_teams.length ? me.scoped_teams : [1]
  return ids.map((id) => ({
    id,
    uuid: null,
    organization: '',
    name: `Project ${id}`,
    api_token: '',
    timezone: 'UTC',
    created_at: me.created_at,
  }))
}

/** Sign-in: an email and a password, or (for scripts' keys and the first start) a personal API key, which the session then acts as. */
function SignIn({ error, onSignedIn }: { error: ApiError | null; onSignedIn: () => void }) {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [key, setKey] = useState('')
  const [failure, setFailure] = useState<ApiError | null>(error)
  const [busy, setBusy] = useState(false)
  const submit = (body: Record<string, string>) => async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setFailure(null)
    try {
      await post('/api/login', body)
      onSignedIn()
    } catch (e) {
      setFailure(asApiError(e))
    } finally {
      setBusy(false)
    }
  }
  return (
    <SignInCard>
      <form onSubmit={submit({ email, password })} aria-label="Sign in">
        <label for="email">Email</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <ErrorBox error={failure} />
      <details class="key-signin">
        <summary>Sign in with a personal API key</summary>
        <form onSubmit={submit({ personal_api_key: key.trim() })} aria-label="Sign in with a key">
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
          <button type="submit" id="key-submit" disabled={busy}>
            Sign in with the key
          </button>
          <p class="muted small">
            The browser keeps a session that acts as the key, never the key itself; it ends when the key is revoked.
          </p>
        </form>
      </details>
      <p class="muted small">
        New here? <code>npm start</code> prints a link that sets up the owner&apos;s account; the owner invites the others.
      </p>
    </SignInCard>
  )
}

function App() {
  const place = usePlace()
  const [signed, setSigned] = useState<SignedIn | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const [checking, setChecking] = useState(true)

  const load = () =>
    loadSession().then(
      (s) => {
        setSigned(s)
        setError(null)
      },
      (e: unknown) => {
        // Nobody signed in (401) is no error to show; anything else (Wren down, a key that reaches nothing) is.
        const failure = asApiError(e)
        setSigned(null)
        setError(failure.status === 401 ? null : failure)
      },
    )
  useEffect(() => {
    load().finally(() => setChecking(false))
  }, [])

  const { project: projectId, section, rest } = parsePath(place.path)
  const project = signed ? (signed.projects.find((p) => p.id === projectId) ?? null) : null
  /** The scope the signed-in session lacks for a section (null: it may open it); a password session manages its own keys. */
  const lackingFor = (s: (typeof SECTIONS)[number]): string | null =>
    signed === null ? s.scope : s.section === 'keys' && signed.me?.signed_in_with === 'password' ? null : missingScope(signed.scopes, s)
  const firstSection = signed ? (SECTIONS.find((s) => lackingFor(s) === null)?.section ?? 'settings') : 'trends'
  // The menu, folded behind its button on a narrow window: folded again by a click on any of its links.
  const [menuOpen, setMenuOpen] = useState(false)
  useEffect(() => {
    if (!signed) return
    if (!project) navigate(`/project/${signed.projects[0].id}/${firstSection}`, { replace: true })
    else if (!section) navigate(`/project/${project.id}/${firstSection}`, { replace: true })
  }, [signed, project, section])

  const joining = /^\/(setup|signup)\/([^/]+)\/?$/.exec(place.path)
  if (joining) return <JoinPage token={joining[2]} onJoined={() => load().then(() => navigate('/'))} />
  if (checking) return <Loading />
  if (!signed) return <SignIn error={error} onSignedIn={() => void load()} />
  if (!project || !section) return <Loading />

  const session: Session = {
    project,
    projects: signed.projects,
    scopes: signed.scopes,
    me: signed.me,
    refreshProjects: () => void load(),
  }
  const signOut = async () => {
    await post('/api/logout', undefined).catch(() => undefined)
    setSigned(null)
    setError(null)
    navigate('/')
  }
  const switchProject = (id: string) => navigate(`/project/${id}/${section}`)
  const known = SECTIONS.find((s) => s.section === section)
  const menuSection = known && 'under' in known ? known.under : section
  const lacking = known ? lackingFor(known) : null
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
          {signed.me?.email ? (
            <a class="who" href={`/project/${project.id}/account`} title="Your account">
              {signed.me.email}
            </a>
          ) : null}
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
            {SECTIONS.filter((s) => lackingFor(s) === null && !('under' in s)).map((s) => (
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
                new ApiError(
                  403,
                  `${signed.me?.signed_in_with === 'password' ? 'Your role' : 'This key'} lacks the ${lacking} scope that the ${known.title} page needs.`,
                  'permission_denied',
                  null,
                )
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
    case 'experiments':
      return rest[0] ? <ExperimentPage id={rest[0]} /> : <ExperimentsPage />
    case 'surveys':
      return rest[0] ? <SurveyPage id={rest[0]} /> : <SurveysPage />
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
    case 'members':
      return <MembersPage />
    case 'account':
      return <AccountPage />
    default:
      return <ErrorBox error={new ApiError(404, `There is no page called '${section}'.`, 'not_found', null)} />
  }
}

const root = document.getElementById('app')!
// The page's "Loading Wren…" line is its own markup, not Preact's: cleared, or it stays above the app.
root.replaceChildren()
render(<App />, root)
