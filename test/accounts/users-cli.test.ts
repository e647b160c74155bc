// Owners and members made outside the app: `wren users create` (the password from standard input) on a stopped
// data directory and through a running Wren, WREN_OWNER_EMAIL/WREN_OWNER_PASSWORD on a first start, and the setup
// link `npm start` prints until the owner can sign in.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnWren, startWren, wrenCliWithInput } from '../support/wren'

const signIn = (url: string, email: string, password: string) =>
  fetch(`${url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) })

describe('wren users create', () => {
  let dataDir: string
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wren-users-cli-'))
  })
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true })
  })

  it('makes the owner on a stopped data directory and a member through the running Wren; both sign in', async () => {
    // A first start prints the owner's setup link; stopped, the CLI makes the owner instead.
    const first = await spawnWren(dataDir, {})
    expect(first.output()).toMatch(new RegExp(`Set up the owner's account \\(email and password\\): ${first.url}/setup/[A-Za-z0-9_-]{40,}`))
    await first.stop()
    expect(
      await wrenCliWithInput(dataDir, 'owner passphrase\n', 'users', 'create', '--email', 'Owner@Example.com', '--role', 'owner'),
    ).toEqual([{ uuid: expect.any(String), email: 'owner@example.com', role: 'owner' }])
    await expect(wrenCliWithInput(dataDir, 'short\n', 'users', 'create', '--email', 'x@example.com')).rejects.toThrow(
      /at least 8 characters/,
    )

    // An owner who can sign in exists: WREN_OWNER_* on this start are ignored.
    const server = await spawnWren(dataDir, { WREN_OWNER_EMAIL: 'late@example.com', WREN_OWNER_PASSWORD: 'late passphrase' })
    try {
      expect(server.output()).not.toContain('Set up the owner')
      expect((await signIn(server.url, 'late@example.com', 'late passphrase')).status).toBe(401)
      expect((await signIn(server.url, 'owner@example.com', 'owner passphrase')).status).toBe(200)
      const [member] = await wrenCliWithInput(
        dataDir,
        'member passphrase',
        'users',
        'create',
        '--email',
        'member@example.com',
        '--name',
        'Mo',
      )
      expect(member).toEqual({ uuid: expect.any(String), email: 'member@example.com', role: 'member' })
      const session = await signIn(server.url, 'member@example.com', 'member passphrase')
      expect(session.status).toBe(200)
      const cookie = session.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ')
      const me = await (await fetch(`${server.url}/api/users/@me/`, { headers: { cookie } })).json()
      expect(me).toMatchObject({ email: 'member@example.com', first_name: 'Mo', organization: { membership_level: 1 } })
      const ownerCookie = (await signIn(server.url, 'owner@example.com', 'owner passphrase')).headers.getSetCookie()
      const invite = (await (
        await fetch(`${server.url}/api/organizations/@current/invites/`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            cookie: ownerCookie.map((c) => c.split(';')[0]).join('; '),
            'x-csrftoken': ownerCookie
              .find((c) => c.startsWith('wren_csrftoken='))!
              .split(';')[0]
              .split('=')[1],
          },
          body: JSON.stringify({ target_email: 'late@example.com' }),
        })
      ).json()) as { invite_url: string }
      await server.stop()

      // Started again four days on: the member's session (two weeks) still opens; the invitation (three days) does not.
      const later = await spawnWren(dataDir, { WREN_NOW: new Date(Date.now() + 4 * 86_400_000).toISOString() })
      try {
        expect((await fetch(`${later.url}/api/users/@me/`, { headers: { cookie } })).status).toBe(200)
        const expired = await fetch(`${later.url}/api/signup/${new URL(invite.invite_url).pathname.split('/').at(-1)}/`)
        expect(expired.status).toBe(400)
        const listed = (await (
          await fetch(`${later.url}/api/organizations/@current/invites/`, {
            headers: { cookie: ownerCookie.map((c) => c.split(';')[0]).join('; ') },
          })
        ).json()) as { results: Array<{ target_email: string; is_expired: boolean }> }
        expect(listed.results.map((i: { target_email: string; is_expired: boolean }) => [i.target_email, i.is_expired])).toEqual([
          ['late@example.com', true],
        ])
      } finally {
        await later.stop()
      }
    } finally {
      if (server.child.exitCode === null && server.child.signalCode === null) await server.stop()
    }
  })
})

describe('WREN_OWNER_EMAIL and WREN_OWNER_PASSWORD', () => {
  it('create the owner on a first start, and are ignored once an owner can sign in', async () => {
    const t = await startWren({ WREN_OWNER_EMAIL: 'boss@example.com', WREN_OWNER_PASSWORD: 'boss passphrase' })
    try {
      expect(t.wren.setupToken).toBeNull()
      expect((await signIn(t.url, 'boss@example.com', 'boss passphrase')).status).toBe(200)
    } finally {
      await t.close()
    }
    await expect(startWren({ WREN_OWNER_EMAIL: 'boss@example.com' })).rejects.toThrow(/go together/)
  })
})
