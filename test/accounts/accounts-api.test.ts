// Accounts through the API, on real chDB: the owner's setup link, sign-in and sign-out, sessions and their
// CSRF token, password storage, invitations and roles, @me and the organization routes in PostHog's shapes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, startWren, type TestWren } from '../support/wren'
import { queryRows } from '../../services/platform/clickhouse'

/** A client that keeps cookies as a browser does, and echoes the CSRF cookie in X-CSRFToken when told to. */
function browserAgent(t: TestWren) {
  const jar = new Map<string, string>()
  const call = async (method: string, route: string, body?: unknown, opts: { csrf?: boolean | string; key?: string } = {}) => {
    const headers: Record<string, string> = {}
    if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
    if (opts.csrf === true && jar.has('wren_csrftoken')) headers['x-csrftoken'] = jar.get('wren_csrftoken')!
    if (typeof opts.csrf === 'string') headers['x-csrftoken'] = opts.csrf
    if (opts.key) headers.authorization = `Bearer ${opts.key}`
    if (body !== undefined) headers['content-type'] = 'application/json'
    const res = await fetch(t.url + route, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    const cookies = res.headers.getSetCookie()
    for (const line of cookies) {
      const [pair] = line.split(';')
      const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) jar.delete(name)
      else jar.set(name, value)
    }
    const text = await res.text()
    return { status: res.status, body: text ? JSON.parse(text) : null, cookies }
  }
  return { call, jar }
}

describe('accounts', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  const owner = { email: 'owner@example.com', password: 'a long owner passphrase' }

  beforeAll(async () => {
    t = await startWren()
    call = api(t)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('sets the owner up once through the setup link a first start makes, and @me answers for the bootstrap key', async () => {
    const token = t.wren.setupToken!
    expect(token).toMatch(/^[A-Za-z0-9_-]{40,}$/)
    const before = await call('GET', '/api/users/@me/')
    expect(before.status).toBe(200)
    expect(before.body).toMatchObject({ email: '', has_password: false, is_staff: false, organization: { membership_level: 15 } })

    const opened = await call('GET', `/api/signup/${token}/`, undefined, null)
    expect(opened.body).toEqual({ target_email: null, first_name: '', organization_name: 'Default organization', level: 15, setup: true })
    const agent = browserAgent(t)
    const done = await agent.call('POST', `/api/signup/${token}/`, { ...owner, first_name: 'Olive' })
    expect(done.status).toBe(201)
    expect(done.body).toMatchObject({ email: owner.email, first_name: 'Olive', has_password: true })
    expect((await agent.call('GET', '/api/users/@me/')).body.email).toBe(owner.email)
    // The link works once.
    expect((await call('GET', `/api/signup/${token}/`, undefined, null)).status).toBe(400)
    expect((await browserAgent(t).call('POST', `/api/signup/${token}/`, { ...owner, email: 'thief@example.com' })).body.code).toBe(
      'invalid_invite',
    )
    // The bootstrap key belongs to the owner now set up.
    expect((await call('GET', '/api/users/@me/')).body).toMatchObject({ email: owner.email, uuid: done.body.uuid })
  })

  it('signs in with the right password only, with one answer for a wrong email or password', async () => {
    const agent = browserAgent(t)
    const wrongPassword = await agent.call('POST', '/api/login', { email: owner.email, password: 'not the passphrase' })
    const wrongEmail = await agent.call('POST', '/api/login', { email: 'nobody@example.com', password: owner.password })
    expect(wrongPassword.status).toBe(401)
    expect(wrongEmail.status).toBe(401)
    expect(wrongPassword.body).toEqual(wrongEmail.body)
    expect(wrongPassword.body.code).toBe('invalid_credentials')
    expect(agent.jar.size).toBe(0)
    expect((await agent.call('GET', '/api/users/@me/')).status).toBe(401)

    const ok = await agent.call('POST', '/api/login', { email: 'OWNER@example.com ', password: owner.password })
    expect(ok).toMatchObject({ status: 200, body: { success: true } })
    const session = ok.cookies.find((c) => c.startsWith('wren_session='))!
    expect(session).toMatch(/HttpOnly/i)
    expect(session).toMatch(/SameSite=Lax/i)
    expect(session).not.toMatch(/Secure/i) // plain HTTP here
    expect(ok.cookies.find((c) => c.startsWith('wren_csrftoken='))).not.toMatch(/HttpOnly/i)
    expect((await agent.call('GET', '/api/users/@me/')).body.email).toBe(owner.email)
  })

  it('stores passwords as scrypt hashes, never the password', async () => {
    const rows = await queryRows<{ email: string; password_hash: string }>(
      t.wren.clickhouse,
      'SELECT email, password_hash FROM users FINAL',
    )
    const stored = rows.find((r) => r.email === owner.email)!.password_hash
    const [kdf, n, r, p, salt, hash] = stored.split('$')
    expect({ kdf, n: Number(n), r: Number(r), p: Number(p) }).toEqual({ kdf: 'scrypt', n: 2 ** 15, r: 8, p: 3 })
    expect(Buffer.from(salt, 'base64url').length).toBe(16)
    expect(Buffer.from(hash, 'base64url').length).toBe(32)
    expect(stored).not.toContain(owner.password)
    // Two users with the same password get different hashes (a salt each).
    const all = rows.map((r) => r.password_hash).filter(Boolean)
    expect(new Set(all).size).toBe(all.length)
  })

  it('refuses a session write without the CSRF token, and takes it with', async () => {
    const agent = browserAgent(t)
    await agent.call('POST', '/api/login', owner)
    const path = `/api/projects/${t.projectId}/actions/`
    const none = await agent.call('POST', path, { name: 'csrf none', steps: [{ event: 'a' }] })
    expect(none.status).toBe(403)
    expect(none.body.detail).toMatch(/CSRF/)
    const wrong = await agent.call('POST', path, { name: 'csrf wrong', steps: [{ event: 'a' }] }, { csrf: 'x'.repeat(43) })
    expect(wrong.status).toBe(403)
    const right = await agent.call('POST', path, { name: 'csrf right', steps: [{ event: 'a' }] }, { csrf: true })
    expect(right.status).toBe(201)
    // Reads need no token; a key needs none either (it is not sent by a browser on its own).
    expect((await agent.call('GET', path)).status).toBe(200)
    expect((await call('POST', path, { name: 'by key', steps: [{ event: 'a' }] })).status).toBe(201)
  })

  it('ends a session at once on sign-out, and a copied cookie is refused after', async () => {
    const agent = browserAgent(t)
    await agent.call('POST', '/api/login', owner)
    const copy = new Map(agent.jar)
    expect((await agent.call('POST', '/api/logout', undefined, { csrf: 'wrong' })).status).toBe(403)
    expect((await agent.call('GET', '/api/users/@me/')).status).toBe(200)
    expect((await agent.call('POST', '/api/logout', undefined, { csrf: true })).body).toEqual({ success: true })
    expect(agent.jar.has('wren_session')).toBe(false)
    const thief = browserAgent(t)
    for (const [k, v] of copy) thief.jar.set(k, v)
    const refused = await thief.call('GET', '/api/users/@me/')
    expect(refused.status).toBe(401)
    expect(refused.body.detail).toMatch(/session has ended/)
  })

  it('invites a member by a single-use link; the member signs in and sees only what the role allows', async () => {
    const admin = browserAgent(t)
    await admin.call('POST', '/api/login', owner)
    const invited = await admin.call(
      'POST',
      '/api/organizations/@current/invites/',
      { target_email: 'Member@Example.com', first_name: 'Max' },
      { csrf: true },
    )
    expect(invited.status).toBe(201)
    expect(invited.body).toMatchObject({
      target_email: 'member@example.com',
      level: 1,
      is_expired: false,
      created_by: { email: owner.email },
    })
    const token = new URL(invited.body.invite_url).pathname.split('/').at(-1)!
    expect(invited.body.invite_url).toBe(`${t.url}/signup/${token}`)
    const list = await admin.call('GET', '/api/organizations/@current/invites/')
    expect(list.body.results.map((i: { id: string }) => i.id)).toContain(invited.body.id)
    expect(list.body.results[0]).not.toHaveProperty('invite_url')

    expect((await call('GET', `/api/signup/${token}/`, undefined, null)).body).toMatchObject({
      target_email: 'member@example.com',
      setup: false,
    })
    const member = browserAgent(t)
    const short = await member.call('POST', `/api/signup/${token}/`, { password: 'short' })
    expect(short.status).toBe(400)
    expect(short.body.attr).toBe('password')
    // Two acceptances at once: one wins, the other finds the link used.
    const other = browserAgent(t)
    const [a, b] = await Promise.all([
      member.call('POST', `/api/signup/${token}/`, { password: 'member passphrase 1' }),
      other.call('POST', `/api/signup/${token}/`, { password: 'member passphrase 2' }),
    ])
    expect([a.status, b.status].sort()).toEqual([201, 400])
    const winner = a.status === 201 ? member : other
    const password = a.status === 201 ? 'member passphrase 1' : 'member passphrase 2'
    expect((await winner.call('GET', '/api/users/@me/')).body).toMatchObject({
      email: 'member@example.com',
      first_name: 'Max',
      organization: { membership_level: 1 },
    })
    expect((await admin.call('GET', '/api/organizations/@current/invites/')).body.results.map((i: { id: string }) => i.id)).not.toContain(
      invited.body.id,
    )

    // Signs in again later with the password set.
    const later = browserAgent(t)
    expect((await later.call('POST', '/api/login', { email: 'member@example.com', password })).status).toBe(200)
    // A member reads and writes insights, never the organization, its members or the project's settings.
    expect((await later.call('GET', `/api/projects/${t.projectId}/insights/`)).status).toBe(200)
    expect((await later.call('POST', `/api/projects/${t.projectId}/insights/`, { name: 'mine' }, { csrf: true })).status).toBe(201)
    const invite = await later.call('POST', '/api/organizations/@current/invites/', { target_email: 'x@example.com' }, { csrf: true })
    expect(invite.status).toBe(403)
    expect(invite.body.detail).toMatch(/role/)
    expect((await later.call('PATCH', `/api/projects/${t.projectId}/`, { name: 'renamed' }, { csrf: true })).status).toBe(403)
    expect((await later.call('GET', '/api/organizations/@current/members/')).status).toBe(200)
    // A member's key is held to the role, whatever it asks for.
    const key = await later.call('POST', '/api/personal_api_keys/', { label: 'mine', scopes: ['*'] }, { csrf: true })
    expect(key.status).toBe(403)
    const readKey = await later.call(
      'POST',
      '/api/personal_api_keys/',
      { label: 'mine', scopes: ['insight:read', 'project:read'] },
      { csrf: true },
    )
    expect(readKey.status).toBe(201)
    expect((await call('GET', '/api/users/@me/', undefined, readKey.body.value)).status).toBe(403) // no user:read in it
    const keys = await later.call('GET', '/api/personal_api_keys/')
    expect(keys.body.results.map((k: { id: string }) => k.id)).toEqual([readKey.body.id])

    // The owner makes the member an admin: the same session may invite at once.
    const members = (await admin.call('GET', '/api/organizations/@current/members/')).body.results
    const memberRow = members.find((m: { user: { email: string } }) => m.user.email === 'member@example.com')
    expect(memberRow).toMatchObject({ level: 1, user: { first_name: 'Max' } })
    const promoted = await admin.call('PATCH', `/api/organizations/@current/members/${memberRow.user.uuid}/`, { level: 8 }, { csrf: true })
    expect(promoted.body.level).toBe(8)
    expect(
      (await later.call('POST', '/api/organizations/@current/invites/', { target_email: 'y@example.com' }, { csrf: true })).status,
    ).toBe(201)
    // An admin cannot touch the owner.
    const ownerRow = members.find((m: { user: { email: string } }) => m.user.email === owner.email)
    expect(
      (await later.call('DELETE', `/api/organizations/@current/members/${ownerRow.user.uuid}/`, undefined, { csrf: true })).status,
    ).toBe(403)

    // Removed: every session and key of the member is refused at once.
    expect(
      (await admin.call('DELETE', `/api/organizations/@current/members/${memberRow.user.uuid}/`, undefined, { csrf: true })).status,
    ).toBe(204)
    expect((await later.call('GET', '/api/users/@me/')).status).toBe(401)
    expect((await winner.call('GET', '/api/users/@me/')).status).toBe(401)
    expect((await call('GET', `/api/projects/${t.projectId}/insights/`, undefined, readKey.body.value)).status).toBe(401)
    expect((await later.call('POST', '/api/login', { email: 'member@example.com', password })).status).toBe(401)
    // Invited back, the member starts again with no key: the old one was revoked with the removal.
    const again = await call('POST', '/api/organizations/@current/invites/', { target_email: 'member@example.com' })
    expect(again.status).toBe(201)
    const back = browserAgent(t)
    const accepted = await back.call('POST', `/api/signup/${new URL(again.body.invite_url).pathname.split('/').at(-1)}/`, {
      password: 'member passphrase 3',
    })
    expect(accepted.status).toBe(201)
    expect(accepted.body.uuid).toBe(memberRow.user.uuid)
    expect((await call('GET', `/api/projects/${t.projectId}/insights/`, undefined, readKey.body.value)).status).toBe(401)
    expect((await back.call('GET', '/api/personal_api_keys/')).body.results).toEqual([])
  })

  it('revokes an invitation: its link stops working', async () => {
    const created = await call('POST', '/api/organizations/@current/invites/', { target_email: 'gone@example.com', level: 8 })
    expect(created.status).toBe(201)
    const token = new URL(created.body.invite_url).pathname.split('/').at(-1)!
    expect((await call('DELETE', `/api/organizations/@current/invites/${created.body.id}/`)).status).toBe(204)
    expect((await call('GET', `/api/signup/${token}/`, undefined, null)).status).toBe(400)
    expect((await call('DELETE', `/api/organizations/@current/invites/${created.body.id}/`)).status).toBe(404)
  })

  it('answers @me and the organization routes in PostHog’s shapes', async () => {
    const me = (await call('GET', '/api/users/@me/')).body
    expect(me).toMatchObject({
      uuid: expect.any(String),
      distinct_id: me.uuid,
      email: owner.email,
      first_name: 'Olive',
      is_staff: false,
      team: { id: t.projectId, name: 'Default project', api_token: t.projectKey, project_id: t.projectId },
      organization: { name: 'Default organization', slug: 'default-organization', membership_level: 15 },
      organizations: [{ id: me.organization.id, name: 'Default organization', membership_level: 15 }],
    })
    const orgs = (await call('GET', '/api/organizations/')).body
    expect(orgs.results.map((o: { id: string }) => o.id)).toEqual([me.organization.id])
    expect((await call('GET', `/api/organizations/${me.organization.id}/`)).body.id).toBe(me.organization.id)
    expect((await call('GET', '/api/organizations/not-this-one/')).status).toBe(404)
    const projects = (await call('GET', '/api/organizations/@current/projects/')).body
    expect(projects.results.map((p: { id: number }) => p.id)).toEqual([t.projectId])
    const renamed = await call('PATCH', '/api/organizations/@current/', { name: 'Wren Co' })
    expect(renamed.body).toMatchObject({ name: 'Wren Co', slug: 'wren-co' })
    // A password change needs the current password and ends the user's other sessions.
    const elsewhere = browserAgent(t)
    await elsewhere.call('POST', '/api/login', owner)
    const here = browserAgent(t)
    await here.call('POST', '/api/login', owner)
    const wrong = await here.call('PATCH', '/api/users/@me/', { password: 'a new passphrase', current_password: 'nope' }, { csrf: true })
    expect(wrong.status).toBe(400)
    const changed = await here.call(
      'PATCH',
      '/api/users/@me/',
      { password: 'a new passphrase', current_password: owner.password },
      { csrf: true },
    )
    expect(changed.status).toBe(200)
    expect((await here.call('GET', '/api/users/@me/')).status).toBe(200)
    expect((await elsewhere.call('GET', '/api/users/@me/')).status).toBe(401)
    expect((await browserAgent(t).call('POST', '/api/login', owner)).status).toBe(401)
    owner.password = 'a new passphrase'
  })

  it('limits failed sign-ins per account, the right password included, with PostHog’s answer', async () => {
    const invited = await call('POST', '/api/organizations/@current/invites/', { target_email: 'limited@example.com' })
    const token = new URL(invited.body.invite_url).pathname.split('/').at(-1)!
    const user = { email: 'limited@example.com', password: 'limited passphrase' }
    const agent = browserAgent(t)
    expect((await agent.call('POST', `/api/signup/${token}/`, { password: user.password })).status).toBe(201)
    for (let i = 0; i < 10; i++)
      expect((await agent.call('POST', '/api/login', { email: user.email, password: `guess ${i}` })).status).toBe(401)
    const limited = await agent.call('POST', '/api/login', user)
    expect(limited.status).toBe(403)
    expect(limited.body).toMatchObject({ code: 'too_many_failed_attempts', type: 'authentication_error' })
    // Another account from the same address, the bootstrap key and existing sessions are not locked out.
    expect((await browserAgent(t).call('POST', '/api/login', owner)).status).toBe(200)
    expect((await call('GET', '/api/users/@me/')).status).toBe(200)
    expect((await agent.call('GET', '/api/users/@me/')).status).toBe(200)
  })

  // Last: it leaves this address unable to sign in for the window.
  it('limits sign-ins with wrong keys per address, as sign-ins with wrong passwords', async () => {
    // This address failed some sign-ins in the tests above: wrong keys fill its 50 within the window.
    const answers: number[] = []
    for (let i = 0; i < 50 && !answers.includes(403); i++)
      answers.push((await browserAgent(t).call('POST', '/api/login', { personal_api_key: `phx_guess_${i}_${'x'.repeat(30)}` })).status)
    expect(answers.at(-1)).toBe(403)
    expect(answers.slice(0, -1).every((s) => s === 401)).toBe(true)
    expect(answers.length).toBeGreaterThan(10)
    const limited = await browserAgent(t).call('POST', '/api/login', { personal_api_key: t.personalKey })
    expect(limited.status).toBe(403)
    expect(limited.body.code).toBe('too_many_failed_attempts')
  })
})

describe('the session cookie behind an HTTPS proxy', () => {
  it('is Secure when the trusted proxy says the request came over HTTPS, and not otherwise', async () => {
    const t = await startWren({
      WREN_TRUSTED_PROXIES: '127.0.0.1',
      WREN_OWNER_EMAIL: 'tls@example.com',
      WREN_OWNER_PASSWORD: 'tls passphrase',
    })
    try {
      const login = (proto: string) =>
        fetch(`${t.url}/api/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-proto': proto },
          body: JSON.stringify({ email: 'tls@example.com', password: 'tls passphrase' }),
        })
      const overHttps = (await login('https')).headers.getSetCookie()
      expect(overHttps.find((c) => c.startsWith('wren_session='))).toMatch(/;\s*Secure/i)
      expect(overHttps.find((c) => c.startsWith('wren_csrftoken='))).toMatch(/;\s*Secure/i)
      expect((await login('http')).headers.getSetCookie().find((c) => c.startsWith('wren_session='))).not.toMatch(/Secure/i)
    } finally {
      await t.close()
    }
  })
})
