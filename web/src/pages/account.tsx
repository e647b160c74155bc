// Accounts in the app: the page an invitation's or the owner's setup link opens (set a password, signed in),
// the organization's members and invitations (admins invite by link, change levels, remove), and your own
// account (name, password).
import { useState } from 'preact/hooks'
import { ApiError, del, get, patch, post } from '../api'
import type { Invite, Me, Member, Paginated } from '../answers'
import { ErrorBox, Loading, SignInCard } from '../components/feedback'
import { PageHeader } from '../components/headers'
import { useAction, useLoad } from '../components/load'
import { formatTime } from '../components/properties'
import { CopyButton } from '../components/copy'
import { useSession } from '../session'

const ORG = '/api/organizations/@current'
/** PostHog's membership levels. */
const LEVELS: Array<{ level: number; name: string }> = [
  { level: 1, name: 'Member' },
  { level: 8, name: 'Admin' },
  { level: 15, name: 'Owner' },
]
const levelName = (level: number) => LEVELS.find((l) => l.level === level)?.name ?? String(level)

interface Opened {
  target_email: string | null
  first_name: string
  organization_name: string
  level: number
  setup: boolean
}

/** /signup/:token and /setup/:token: who the link is for, and a form that sets the password and signs in. */
export function JoinPage({ token, onJoined }: { token: string; onJoined: () => void }) {
  const opened = useLoad(() => get<Opened>(`/api/signup/${encodeURIComponent(token)}/`), [token])
  const [email, setEmail] = useState('')
  const [name, setName] = useState('')
  const [password, setPassword] = useState('')
  const [error, busy, run] = useAction()
  const submit = (event: Event) => {
    event.preventDefault()
    run(async () => {
      await post(`/api/signup/${encodeURIComponent(token)}/`, {
        password,
        ...(name ? { first_name: name } : {}),
        ...(opened.data?.setup ? { email } : {}),
      })
      onJoined()
    })
  }
  const o = opened.data
  return (
    <SignInCard>
      <ErrorBox error={opened.error} />
      {opened.loading && !o ? <Loading /> : null}
      {o ? (
        <form onSubmit={submit} aria-label={o.setup ? 'Set up the owner' : 'Accept the invitation'}>
          <p>
            {o.setup
              ? `Set up the owner of ${o.organization_name}: the email and password you sign in with.`
              : `You are invited to ${o.organization_name} as ${levelName(o.level).toLowerCase()}, as ${o.target_email}.`}
          </p>
          {o.setup ? (
            <>
              <label for="join-email">Email</label>
              <input
                id="join-email"
                type="email"
                autocomplete="username"
                required
                value={email}
                onInput={(e) => setEmail(e.currentTarget.value)}
              />
            </>
          ) : null}
          <label for="join-name">First name</label>
          <input
            id="join-name"
            autocomplete="given-name"
            placeholder={o.first_name}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <label for="join-password">Password (at least 8 characters)</label>
          <input
            id="join-password"
            type="password"
            autocomplete="new-password"
            minLength={8}
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
          <button type="submit" disabled={busy}>
            {o.setup ? 'Create the owner and sign in' : 'Join and sign in'}
          </button>
          <ErrorBox error={error} />
        </form>
      ) : null}
    </SignInCard>
  )
}

/** The organization's members and open invitations; admins and owners invite, change levels and remove. */
export function MembersPage() {
  const { can, me } = useSession()
  const admin = can('organization_member:write')
  const members = useLoad(() => get<Paginated<Member>>(`${ORG}/members/?limit=1000`), [])
  const invites = useLoad(() => (admin ? get<Paginated<Invite>>(`${ORG}/invites/?limit=1000`) : Promise.resolve(null)), [admin])
  const [error, busy, run] = useAction()
  const [invited, setInvited] = useState<Invite | null>(null)
  const [email, setEmail] = useState('')
  const [level, setLevel] = useState(1)
  const invite = (event: Event) => {
    event.preventDefault()
    run(async () => {
      setInvited(await post<Invite>(`${ORG}/invites/`, { target_email: email, level }))
      setEmail('')
      invites.reload()
    })
  }
  const myLevel = me?.organization.membership_level ?? 0
  const changeLevel = (m: Member, next: number) =>
    run(async () => {
      await patch(`${ORG}/members/${m.user.uuid}/`, { level: next })
      members.reload()
    })
  const remove = (m: Member) =>
    run(async () => {
      await del(`${ORG}/members/${m.user.uuid}/`)
      members.reload()
    })
  const revoke = (i: Invite) =>
    run(async () => {
      await del(`${ORG}/invites/${i.id}/`)
      invites.reload()
    })
  /** Levels `m` may be given by me: admins change members and admins, owners anyone; nobody themselves. */
  const changeable = (m: Member) => admin && m.user.uuid !== me?.uuid && (m.level < 15 || myLevel >= 15)
  return (
    <div>
      <PageHeader title="Members" />
      <ErrorBox error={members.error ?? error} />
      {admin ? (
        <section class="card">
          <h2>Invite</h2>
          <form class="inline" onSubmit={invite} aria-label="Invite">
            <label for="invite-email" class="sr-only">
              Email
            </label>
            <input
              id="invite-email"
              type="email"
              placeholder="teammate@example.com"
              required
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
            <label for="invite-level" class="sr-only">
              Level
            </label>
            <select id="invite-level" value={String(level)} onChange={(e) => setLevel(Number(e.currentTarget.value))}>
              {LEVELS.filter((l) => l.level < 15 || myLevel >= 15).map((l) => (
                <option value={String(l.level)}>{l.name}</option>
              ))}
            </select>
            <button type="submit" disabled={busy}>
              Create invite link
            </button>
          </form>
          {invited?.invite_url ? (
            <div class="secret" role="status" aria-label="Invite link">
              <p>Send this link to {invited.target_email}: it works once, for 3 days. Wren sends no email.</p>
              <div class="inline">
                <input
                  class="secret-value"
                  readOnly
                  aria-label="Invite link value"
                  value={invited.invite_url}
                  onFocus={(e) => e.currentTarget.select()}
                />
                <CopyButton text={invited.invite_url} label="Copy link" />
              </div>
            </div>
          ) : null}
        </section>
      ) : null}
      <section class="card scroll">
        <h2>Members</h2>
        {members.loading && !members.data ? <Loading /> : null}
        <table class="list members">
          <thead>
            <tr>
              <th>Name</th>
              <th>Email</th>
              <th>Level</th>
              <th>Joined</th>
              <th>Last sign-in</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {(members.data?.results ?? []).map((m) => (
              <tr data-email={m.user.email}>
                <td>{m.user.first_name || '—'}</td>
                <td>{m.user.email}</td>
                <td>
                  {changeable(m) ? (
                    <select
                      aria-label={`Level of ${m.user.email}`}
                      value={String(m.level)}
                      disabled={busy}
                      onChange={(e) => changeLevel(m, Number(e.currentTarget.value))}
                    >
                      {LEVELS.filter((l) => l.level < 15 || myLevel >= 15).map((l) => (
                        <option value={String(l.level)}>{l.name}</option>
                      ))}
                    </select>
                  ) : (
                    levelName(m.level)
                  )}
                </td>
                <td>{formatTime(m.joined_at)}</td>
                <td>{m.last_login ? formatTime(m.last_login) : 'never'}</td>
                <td>
                  {changeable(m) ? (
                    <button type="button" class="danger small" disabled={busy} onClick={() => remove(m)}>
                      Remove
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {admin ? (
        <section class="card scroll">
          <h2>Open invitations</h2>
          <ErrorBox error={invites.error} />
          {(invites.data?.results ?? []).length === 0 ? <p class="muted">None: every invitation was accepted or revoked.</p> : null}
          <table class="list invites">
            <tbody>
              {(invites.data?.results ?? []).map((i) => (
                <tr data-email={i.target_email}>
                  <td>{i.target_email}</td>
                  <td>{levelName(i.level)}</td>
                  <td>{i.is_expired ? 'expired' : `sent ${formatTime(i.created_at)}`}</td>
                  <td>
                    <button type="button" class="secondary small" disabled={busy} onClick={() => revoke(i)}>
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
    </div>
  )
}

/** Your own account: name, and a new password (which ends your other sessions). */
export function AccountPage() {
  const { me } = useSession()
  const [name, setName] = useState(me?.first_name ?? '')
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const [saved, setSaved] = useState<string | null>(null)
  const [error, busy, run] = useAction()
  if (!me) return <ErrorBox error={new ApiError(403, 'This session’s key may not read its user (user:read).', 'permission_denied', null)} />
  const save = (body: Record<string, string>, what: string) => (event: Event) => {
    event.preventDefault()
    setSaved(null)
    run(async () => {
      await patch<Me>('/api/users/@me/', body)
      setSaved(what)
      setCurrent('')
      setNext('')
    })
  }
  return (
    <div>
      <PageHeader title="Account" />
      <section class="card">
        <dl class="facts">
          <dt>Email</dt>
          <dd>{me.email || '—'}</dd>
          <dt>Organization</dt>
          <dd>
            {me.organization.name} ({levelName(me.organization.membership_level).toLowerCase()})
          </dd>
        </dl>
        <form class="inline" onSubmit={save({ first_name: name }, 'Name saved.')} aria-label="Name">
          <label for="account-name">First name</label>
          <input id="account-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <button type="submit" disabled={busy}>
            Save name
          </button>
        </form>
      </section>
      {me.signed_in_with === 'password' ? (
        <section class="card">
          <h2>Password</h2>
          <form
            onSubmit={save({ current_password: current, password: next }, 'Password changed: your other sessions have ended.')}
            aria-label="Password"
          >
            <label for="current-password">Current password</label>
            <input
              id="current-password"
              type="password"
              autocomplete="current-password"
              required
              value={current}
              onInput={(e) => setCurrent(e.currentTarget.value)}
            />
            <label for="new-password">New password (at least 8 characters)</label>
            <input
              id="new-password"
              type="password"
              autocomplete="new-password"
              minLength={8}
              required
              value={next}
              onInput={(e) => setNext(e.currentTarget.value)}
            />
            <button type="submit" disabled={busy}>
              Change password
            </button>
          </form>
        </section>
      ) : null}
      <ErrorBox error={error} />
      {saved ? <p role="status">{saved}</p> : null}
    </div>
  )
}
