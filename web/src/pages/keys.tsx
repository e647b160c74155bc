// API keys: a user signed in with a password manages their own; through a key, a key holding `*` manages the
// keys that can do no more than it (services/projects/key-routes.ts). The signed-in key (for a key session), a
// form that creates one (its secret shown once, with a copy button), the keys managed and revoking one once
// confirmed.
import { useState } from 'preact/hooks'
import { allows, del, get, post } from '../api'
import type { KeyInfo, Paginated } from '../answers'
import { ErrorBox, Loading } from '../components/feedback'
import { PageHeader } from '../components/headers'
import { useAction, useLoad, type Loaded } from '../components/load'
import { formatTime } from '../components/properties'
import { CopyButton } from '../components/copy'
import { useSession } from '../session'

const KEYS = '/api/personal_api_keys/'
const ALL = '*'

type Preset = 'all' | 'read' | 'custom'

/**
 * The scopes a key may be created with, as the API declares them (the `scopes` enum of POST
 * /api/personal_api_keys/ in Wren's OpenAPI document), so the form offers exactly what the API takes; and
 * the objects whose scopes some route checks (its operations' `x-required-scopes`). The others are PostHog's,
 * taken so that keys made for PostHog tooling keep working, but no Wren route reads them yet.
 */
async function creatableScopes(): Promise<{ all: string[]; served: Set<string> }> {
  const doc = await get<{ paths: Record<string, Record<string, { 'x-required-scopes'?: string[] }>> }>('/api/schema/')
  const body = doc.paths[KEYS]?.post as
    { requestBody?: { content?: Record<string, { schema?: { properties?: { scopes?: { items?: { enum?: unknown[] } } } } }> } } | undefined
  const scopes = body?.requestBody?.content?.['application/json']?.schema?.properties?.scopes?.items?.enum
  const checked = Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((op) => op['x-required-scopes'] ?? []))
  return {
    all: Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === 'string' && s !== ALL) : [],
    served: new Set(objectsOf(checked)),
  }
}

const objectsOf = (scopes: string[]) => [...new Set(scopes.map((s) => s.split(':')[0]))]

export function KeysPage() {
  const session = useSession()
  const byPassword = session.me?.signed_in_with === 'password'
  // A password session is no key: what it may give a key is its role's scopes, to every project.
  const me = useLoad(() => (byPassword ? Promise.resolve<KeyInfo | null>(null) : get<KeyInfo>(`${KEYS}@current/`)), [byPassword])
  const caller: KeyInfo | null = byPassword
    ? {
        id: '',
        label: '',
        mask_value: '',
        scopes: session.scopes ?? [],
        scoped_teams: [],
        scoped_organizations: [],
        created_at: '',
        last_used_at: null,
      }
    : (me.data ?? null)
  // The list pages (100 by default); 1,000 at once is its most.
  const keys = useLoad(() => get<Paginated<KeyInfo>>(`${KEYS}?limit=1000`), [])
  const [created, setCreated] = useState<(KeyInfo & { value: string }) | null>(null)
  return (
    <div>
      <PageHeader title="API keys" />
      <ErrorBox error={me.error} />
      {me.data ? <ThisKey info={me.data} /> : me.loading ? <Loading /> : null}
      {byPassword ? (
        <p class="muted">
          Your keys, for scripts and PostHog&apos;s tools: each acts within your role, and stops when you leave the organization.
        </p>
      ) : null}
      {created ? <NewSecret created={created} onDone={() => setCreated(null)} /> : null}
      <CreateKey
        caller={caller}
        onCreated={(k) => {
          setCreated(k)
          keys.reload()
        }}
      />
      <KeyList loaded={keys} current={me.data?.id ?? null} />
    </div>
  )
}

const projectsText = (teams: number[]) => (teams.length ? teams.map((t) => `#${t}`).join(', ') : 'All projects')
const scopesText = (scopes: string[]) => (scopes.includes(ALL) ? 'All access (*)' : scopes.join(', '))
/** A key's scopes for a table cell: a line breaks between scopes, never inside one. */
const ScopeList = ({ scopes }: { scopes: string[] }) =>
  scopes.includes(ALL) ? (
    <>All access (*)</>
  ) : (
    <>
      {scopes.map((s, i) => (
        <>
          <span class="nowrap">{s}</span>
          {i < scopes.length - 1 ? ', ' : ''}
        </>
      ))}
    </>
  )

function ThisKey({ info }: { info: KeyInfo }) {
  return (
    <section class="card" data-testid="this-key">
      <h2>Signed in with</h2>
      <dl class="facts">
        <dt>Label</dt>
        <dd>{info.label}</dd>
        <dt>Key</dt>
        <dd>
          <code>{info.mask_value}</code>
        </dd>
        <dt>Scopes</dt>
        <dd>{scopesText(info.scopes)}</dd>
        <dt>Projects</dt>
        <dd>{projectsText(info.scoped_teams)}</dd>
        <dt>Created</dt>
        <dd>{formatTime(info.created_at)}</dd>
      </dl>
    </section>
  )
}

/** The new key's value, shown this once (the API stores it hashed), with a copy button. */
function NewSecret({ created, onDone }: { created: KeyInfo & { value: string }; onDone: () => void }) {
  return (
    <section class="card secret" role="status" aria-label="New key">
      <h2>Key “{created.label}” created</h2>
      <p>Copy it now: Wren keeps only its hash, so it is shown this once.</p>
      <div class="inline">
        <input class="secret-value" readOnly aria-label="New key value" value={created.value} onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={created.value} label="Copy key" />
      </div>
      <p>
        <button type="button" class="link" onClick={onDone}>
          Done: hide it
        </button>
      </p>
    </section>
  )
}

function CreateKey({ caller, onCreated }: { caller: KeyInfo | null; onCreated: (k: KeyInfo & { value: string }) => void }) {
  const { projects } = useSession()
  const choices = useLoad(creatableScopes, [])
  const [label, setLabel] = useState('')
  const [preset, setPreset] = useState<Preset>('read')
  const [picked, setPicked] = useState<string[]>([])
  const [teams, setTeams] = useState<number[]>([])
  const [error, busy, run] = useAction()
  // A key does no more than its maker: only the scopes the caller holds are offered (a member's role lacks some).
  const all = (choices.data?.all ?? []).filter((scope) => caller === null || allows(caller.scopes, scope))
  const mayAll = caller === null || caller.scopes.includes(ALL)
  const served = objectsOf(all).filter((o) => choices.data?.served.has(o))
  const unserved = objectsOf(all).filter((o) => !choices.data?.served.has(o))
  const limited = (caller?.scoped_teams.length ?? 0) > 0
  const reachable = limited ? projects.filter((p) => caller!.scoped_teams.includes(p.id)) : projects
  const chosenScopes = preset === 'all' ? [ALL] : preset === 'read' ? all.filter((s) => s.endsWith(':read')) : picked
  const toggle = <T,>(list: T[], item: T, on: boolean) => (on ? [...list, item] : list.filter((x) => x !== item))
  const submit = (event: Event) => {
    event.preventDefault()
    run(async () => {
      const key = await post<KeyInfo & { value: string }>(KEYS, {
        label: label.trim() || 'api',
        scopes: chosenScopes,
        // A key limited to projects creates keys within them: none ticked means all of its own.
        scoped_teams: teams.length ? teams : limited ? caller!.scoped_teams : [],
      })
      setLabel('')
      setPicked([])
      setTeams([])
      onCreated(key)
    })
  }
  const scopeRow = (object: string) => (
    <div class="scope-row">
      <span>{object.replace(/_/g, ' ')}</span>
      {['read', 'write'].map((access) => {
        const scope = `${object}:${access}`
        return all.includes(scope) ? (
          <label class="check">
            <input
              type="checkbox"
              name={scope}
              checked={picked.includes(scope)}
              onChange={(e) => setPicked(toggle(picked, scope, e.currentTarget.checked))}
            />{' '}
            {access}
          </label>
        ) : null
      })}
    </div>
  )
  return (
    <form class="card" onSubmit={submit} aria-label="Create a key">
      <h2>Create a key</h2>
      <ErrorBox error={error ?? choices.error} />
      <div class="grid">
        <label>
          Label
          <input name="label" placeholder="e.g. CI export" value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
        </label>
        <label>
          Access
          <select name="preset" value={preset} onChange={(e) => setPreset(e.currentTarget.value as Preset)}>
            <option value="read">Read everything</option>
            {mayAll ? <option value="all">All access (*), including managing keys</option> : null}
            <option value="custom">Pick scopes…</option>
          </select>
        </label>
      </div>
      {preset === 'custom' ? (
        <fieldset class="scopes">
          <legend>Scopes (write includes read)</legend>
          {served.map(scopeRow)}
          {unserved.length ? (
            <details>
              <summary>{unserved.length} more of PostHog’s scopes, which no Wren route checks yet</summary>
              {unserved.map(scopeRow)}
            </details>
          ) : null}
        </fieldset>
      ) : null}
      <fieldset class="scopes">
        <legend>Projects {limited ? '(this key reaches only these)' : '(none ticked: every project, also ones created later)'}</legend>
        {reachable.map((p) => (
          <label class="check">
            <input
              type="checkbox"
              name={`project-${p.id}`}
              checked={teams.includes(p.id)}
              onChange={(e) => setTeams(toggle(teams, p.id, e.currentTarget.checked))}
            />{' '}
            {p.name} <span class="muted">#{p.id}</span>
          </label>
        ))}
      </fieldset>
      <div class="form-actions">
        <button type="submit" disabled={busy || chosenScopes.length === 0}>
          Create key
        </button>
        {preset === 'custom' && chosenScopes.length === 0 ? <span class="muted">Tick at least one scope.</span> : null}
      </div>
    </form>
  )
}

function KeyList({ loaded, current }: { loaded: Loaded<Paginated<KeyInfo>>; current: string | null }) {
  const [confirming, setConfirming] = useState<KeyInfo | null>(null)
  const [error, busy, run] = useAction()
  const revoke = (key: KeyInfo) =>
    run(async () => {
      await del(`${KEYS}${encodeURIComponent(key.id)}/`)
      setConfirming(null)
      // Revoked, the key the session acts as opens nothing more: the session ends with it, back to the sign-in form.
      if (key.id === current) location.assign('/')
      else loaded.reload()
    })
  const rows = loaded.data?.results ?? []
  return (
    <section class="card scroll">
      <h2>Keys</h2>
      <ErrorBox error={loaded.error ?? error} />
      {loaded.loading && !loaded.data ? <Loading /> : null}
      {confirming ? (
        <div class="confirm card" role="alertdialog" aria-label="Confirm revoke">
          <p>
            Revoke “{confirming.label}” (<code>{confirming.mask_value}</code>)? Anything using it is refused from then on; this cannot be
            undone.
            {confirming.id === current ? ' It is the key you are signed in with: the app signs out.' : ''}
          </p>
          <div class="inline">
            <button type="button" class="danger" disabled={busy} onClick={() => revoke(confirming)}>
              Revoke key
            </button>
            <button type="button" class="secondary" onClick={() => setConfirming(null)}>
              Cancel
            </button>
          </div>
        </div>
      ) : null}
      <table class="list keys">
        <thead>
          <tr>
            <th>Label</th>
            <th>Scopes</th>
            <th>Projects</th>
            <th>Created</th>
            <th>Last used</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rows.map((k) => (
            <tr data-key={k.id}>
              <td>
                <strong>{k.label}</strong> <code class="muted">{k.mask_value}</code>
                {k.id === current ? <span class="muted"> (this key)</span> : null}
              </td>
              <td class="key-scopes">
                <ScopeList scopes={k.scopes} />
              </td>
              <td>{projectsText(k.scoped_teams)}</td>
              <td class="nowrap">{formatTime(k.created_at)}</td>
              <td class="nowrap">{k.last_used_at ? formatTime(k.last_used_at) : 'never'}</td>
              <td>
                <button type="button" class="secondary small" disabled={busy} onClick={() => setConfirming(k)}>
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}
