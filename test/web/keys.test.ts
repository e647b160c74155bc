// The web app's API keys page and what a key can do in the app, in headless Chromium on a real Wren: a key
// made in the page works against the API (its secret shown once, never again), revoked it is refused (401),
// a second key too, and revoking the key it signed in with signs the app out; a key with only query:read
// signs in, its menu holds only what its scopes allow and another page's URL says which scope is missing;
// an empty project's Events and Persons pages show the snippet with a copy button, and its Recordings page turns
// recording on; the project's domains saved in Settings survive a reload (and the remote config follows
// them); the keys page at 1280 and 390 px wide (screenshots under test-artifacts/web/, checked not blank
// and not wider than the window).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { api, startWren, type TestWren } from '../support/wren'
import { skipReason } from '../support/skip'
import { chromiumMissing, expectDrawn, launchChromium, signedInContext, signIn, submitKey } from '../support/browser'

const unavailable = skipReason('web-keys', chromiumMissing())
const WIDTHS = { desktop: { width: 1280, height: 860 }, phone: { width: 390, height: 844 } }
const CLIPBOARD = ['clipboard-read', 'clipboard-write']

/** What the test reads inside the page (the test is type-checked without the DOM's types). */
type Member = { level: number; user: { email: string; first_name: string } }

interface PageGlobal {
  navigator: { clipboard: { readText(): Promise<string> } }
}

describe.skipIf(unavailable !== null)(`the web app's keys, in headless Chromium${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let browser: Browser
  /** What a test opened (browsers, tabs): closed when it ends, so no page it left (the events list reloads itself) runs on. */
  const opened: Array<BrowserContext | Page> = []
  /** One browser per width signed in with the personal key, made when a test first needs it: tests open tabs of it. */
  const signedIn = new Map<number, Promise<BrowserContext>>()

  beforeAll(async () => {
    t = await startWren()
    call = api(t)
    browser = await launchChromium()
  })
  afterEach(async () => {
    for (const each of opened.splice(0)) await each.close()
  })
  afterAll(async () => {
    for (const context of signedIn.values()) await (await context).close()
    await browser?.close()
    await t?.close()
  })

  const open = async (size: { width: number; height: number } = WIDTHS.desktop): Promise<Page> => {
    const context = await browser.newContext({ viewport: size, permissions: CLIPBOARD })
    opened.push(context)
    return context.newPage()
  }
  /** A new tab of the browser at `size` signed in with the personal key, on the page the app opens on. */
  const signedInTab = async (size: { width: number; height: number } = WIDTHS.desktop): Promise<Page> => {
    if (!signedIn.has(size.width))
      signedIn.set(size.width, signedInContext(browser, t.url, t.personalKey, { viewport: size, permissions: CLIPBOARD }))
    const page = await (await signedIn.get(size.width)!).newPage()
    opened.push(page)
    await page.goto(t.url + '/')
    await page.waitForSelector('nav.menu')
    return page
  }
  const menu = async (page: Page) => page.locator('nav.menu a').allTextContents()
  const clipboard = (page: Page) => page.evaluate(() => (globalThis as unknown as PageGlobal).navigator.clipboard.readText())

  /** Creates a key in the open keys page and answers its value, read from the page (and copied by its button). */
  const createKey = async (page: Page, label: string, pick: () => Promise<void>) => {
    await page.fill('form[aria-label="Create a key"] input[name=label]', label)
    await pick()
    await page.click('form[aria-label="Create a key"] button[type=submit]')
    const value = await page.locator('input[aria-label="New key value"]').inputValue()
    await page.click('section[aria-label="New key"] button:has-text("Copy key")')
    await page.waitForSelector('section[aria-label="New key"] .ok')
    expect(await clipboard(page)).toBe(value)
    return value
  }
  const keyId = async (label: string): Promise<string> =>
    (await call('GET', '/api/personal_api_keys/')).body.results.find((k: { label: string }) => k.label === label).id
  const revoke = async (page: Page, label: string) => {
    const id = await keyId(label)
    await page.click(`tr[data-key="${id}"] button:has-text("Revoke")`)
    const dialog = page.locator('[role=alertdialog][aria-label="Confirm revoke"]')
    expect(await dialog.textContent()).toContain(label)
    await dialog.locator('button:has-text("Revoke key")').click()
    await page.locator(`tr[data-key="${id}"]`).waitFor({ state: 'detached' })
  }

  it('creates keys that work against the API, shows each secret once, and revokes them (then refused with 401)', async () => {
    const page = await signedInTab()
    expect(await menu(page)).toContain('API keys')
    await page.click('nav.menu a:has-text("API keys")')
    await page.waitForURL(`${t.url}/project/${t.projectId}/keys`)
    expect(await page.textContent('[data-testid=this-key]')).toContain('All access (*)')

    // The first: picked scopes, every project.
    const first = await createKey(page, 'events export', async () => {
      await page.selectOption('select[name=preset]', 'custom')
      // The scopes some route checks come first; PostHog's others (kept for its tooling's keys) wait behind a fold.
      const folded = (scope: string) => page.locator(`fieldset.scopes details input[name="${scope}"]`).count()
      expect([
        await folded('notebook:read'),
        await folded('webhook:write'),
        await folded('person:write'),
        await folded('query:read'),
      ]).toEqual([1, 1, 0, 0])
      expect(await page.isVisible('input[name="notebook:read"]')).toBe(false)
      await page.check('input[name="query:read"]')
      await page.check('input[name="person:write"]')
    })
    expect(first).toMatch(/^phx_/)
    expect((await call('GET', `/api/projects/${t.projectId}/events/`, undefined, first)).status).toBe(200)
    expect((await call('GET', `/api/projects/${t.projectId}/persons/`, undefined, first)).status).toBe(200)
    const beyond = await call('GET', '/api/projects/', undefined, first)
    expect(beyond.status).toBe(403)
    expect(beyond.body.detail).toContain('project:read')
    const firstRow = page.locator(`tr[data-key="${await keyId('events export')}"]`)
    expect(await firstRow.locator('td').allTextContents()).toEqual([
      expect.stringContaining('events export'),
      'query:read, person:write',
      'All projects',
      expect.any(String),
      expect.any(String),
      'Revoke',
    ])

    // Shown once: gone from the page once hidden, and nowhere after a reload or in the API's list.
    await page.click('section[aria-label="New key"] button:has-text("Done")')
    expect(await page.content()).not.toContain(first)
    await page.reload()
    await page.waitForSelector('table.keys tbody tr')
    expect(await page.content()).not.toContain(first)
    expect((await call('GET', '/api/personal_api_keys/')).text).not.toContain(first)

    // The second: the read-everything preset, limited to the project.
    const second = await createKey(page, 'read only shop', async () => {
      await page.check(`input[name="project-${t.projectId}"]`)
    })
    expect(second).not.toBe(first)
    const created = (await call('GET', `/api/personal_api_keys/@current/`, undefined, second)).body
    expect(created).toMatchObject({ label: 'read only shop', scoped_teams: [t.projectId] })
    expect(created.scopes).toContain('insight:read')
    expect(created.scopes.every((s: string) => s.endsWith(':read'))).toBe(true)
    expect((await call('GET', `/api/projects/${t.projectId}/persons/`, undefined, second)).status).toBe(200)
    expect((await call('PATCH', `/api/projects/${t.projectId}/`, { name: 'nope' }, second)).status).toBe(403)

    // Revoked (after a confirmation), each is refused from then on.
    await revoke(page, 'events export')
    const refused = await call('GET', `/api/projects/${t.projectId}/events/`, undefined, first)
    expect(refused.status).toBe(401)
    expect((await call('GET', `/api/projects/${t.projectId}/persons/`, undefined, second)).status).toBe(200)
    await revoke(page, 'read only shop')
    expect((await call('GET', `/api/projects/${t.projectId}/persons/`, undefined, second)).status).toBe(401)

    // And the app refuses to sign in with one, with the API's reason.
    const other = await open()
    await other.goto(t.url + '/')
    await submitKey(other, first)
    expect(await (await other.waitForSelector('.error')).textContent()).toContain(
      refused.body.detail.replace('Authorization header', 'body'),
    )
  })

  it('revokes the key it is signed in with, once confirmed, and then opens on the sign-in form', async () => {
    const created = await call('POST', '/api/personal_api_keys/', { label: 'short lived', scopes: ['*'] })
    const page = await open()
    await signIn(page, t.url, created.body.value)
    await page.goto(`${t.url}/project/${t.projectId}/keys`)
    await page.click(`tr[data-key="${created.body.id}"] button:has-text("Revoke")`)
    expect(await page.textContent('[role=alertdialog]')).toContain('the key you are signed in with')
    await page.click('[role=alertdialog] button:has-text("Revoke key")')
    await page.waitForSelector('#email')
    expect((await call('GET', `/api/projects/${t.projectId}/`, undefined, created.body.value)).status).toBe(401)
  })

  it('signs in with a key holding only query:read: its menu follows its scopes and another page says which scope is missing', async () => {
    const created = await call('POST', '/api/personal_api_keys/', { label: 'query only', scopes: ['query:read'] })
    expect(created.status, created.text).toBe(201)
    const page = await open()
    await signIn(page, t.url, created.body.value)
    await page.waitForURL(`${t.url}/project/${t.projectId}/events`)
    expect(await menu(page)).toEqual(['Events', 'SQL'])
    for (const [section, scope] of [
      ['persons', 'person:read'],
      ['settings', 'project:read'],
      ['keys', "'*'"],
    ] as const) {
      await page.goto(`${t.url}/project/${t.projectId}/${section}`)
      expect(await (await page.waitForSelector('.error')).textContent(), section).toContain(scope.replace(/'/g, ''))
    }

    // A key limited to a second project opens that one.
    const shop = await call('POST', '/api/projects/', { name: 'Second shop' })
    const limited = await call('POST', '/api/personal_api_keys/', {
      label: 'query second',
      scopes: ['query:read', 'person:read'],
      scoped_teams: [shop.body.id],
    })
    const other = await open()
    await signIn(other, t.url, limited.body.value)
    await other.waitForURL(`${t.url}/project/${shop.body.id}/events`)
    expect(await menu(other)).toEqual(['Events', 'SQL', 'Persons'])
    await other.waitForSelector('text=No events yet.')
  })

  it('shows an empty project’s snippet with a copy button on Events and Persons, and turns recording on from Recordings', async () => {
    const page = await signedInTab()
    await page.goto(`${t.url}/project/${t.projectId}/events`)
    await page.waitForSelector('text=No events yet.')
    const snippet = await page.textContent('[data-testid=snippet]')
    expect(snippet).toContain(JSON.stringify(t.projectKey))
    expect(snippet).toContain(`api_host: ${JSON.stringify(t.url)}`)
    await page.click('button:has-text("Copy snippet")')
    await page.waitForSelector('text=Copied.')
    expect(await clipboard(page)).toBe(snippet)
    await expectDrawn(page, 'events-empty-desktop', 1280, { maxShare: 0.97 })

    // The Persons page of an empty project says the same next step.
    await page.goto(`${t.url}/project/${t.projectId}/persons`)
    await page.waitForSelector('text=No persons yet.')
    expect(await page.textContent('[data-testid=snippet]')).toBe(snippet)

    await page.goto(`${t.url}/project/${t.projectId}/recordings`)
    await page.waitForSelector('text=Recording is off for this project')
    await page.click('button:has-text("Turn recording on")')
    await page.waitForSelector('[data-testid=snippet]')
    expect((await call('GET', `/api/projects/${t.projectId}/`)).body.session_recording_opt_in).toBe(true)
  })

  it('keeps the project’s domains saved in Settings after a reload, and the remote config follows them', async () => {
    const page = await signedInTab()
    await page.goto(`${t.url}/project/${t.projectId}/settings`)
    await page.fill('textarea[name=recording_domains]', 'https://shop.example\n  https://*.wren.test \n\n')
    await page.fill('textarea[name=app_urls]', 'https://shop.example/app')
    await page.click('button:has-text("Save settings")')
    await page.waitForSelector('text=Saved.')
    await page.reload()
    await page.waitForSelector('textarea[name=recording_domains]')
    expect(await page.inputValue('textarea[name=recording_domains]')).toBe('https://shop.example\nhttps://*.wren.test')
    expect(await page.inputValue('textarea[name=app_urls]')).toBe('https://shop.example/app')
    await expectDrawn(page, 'settings-domains-desktop', 1280, { maxShare: 0.97 })
    const project = (await call('GET', `/api/projects/${t.projectId}/`)).body
    expect(project).toMatchObject({
      recording_domains: ['https://shop.example', 'https://*.wren.test'],
      app_urls: ['https://shop.example/app'],
    })

    // posthog-js records on the listed sites only.
    await call('PATCH', `/api/projects/${t.projectId}/`, { session_recording_opt_in: true })
    const config = async (origin: string) =>
      ((await (await fetch(`${t.url}/array/${t.projectKey}/config`, { headers: { origin } })).json()) as { sessionRecording: unknown })
        .sessionRecording
    expect(await config('https://app.wren.test')).toMatchObject({ endpoint: '/s/' })
    expect(await config('https://elsewhere.example')).toBe(false)
  })

  it('draws the keys page at 1280 and 390 px wide: not blank, nothing wider than the window', async () => {
    await call('POST', '/api/personal_api_keys/', { label: 'a rather long label for the nightly warehouse export', scopes: ['*'] })
    for (const [name, size] of Object.entries(WIDTHS)) {
      const page = await signedInTab(size)
      await page.goto(`${t.url}/project/${t.projectId}/keys`)
      await page.waitForSelector('table.keys tbody tr')
      await page.selectOption('select[name=preset]', 'custom')
      await page.check('input[name="insight:read"]')
      await page.fill('form[aria-label="Create a key"] input[name=label]', `dashboard reader (${name})`)
      await page.click('form[aria-label="Create a key"] button[type=submit]')
      await page.waitForSelector('input[aria-label="New key value"]')
      expect(await page.locator('.error').count()).toBe(0)
      await expectDrawn(page, `keys-${name}`, size.width, { maxShare: 0.97 })
    }
  })
  it('sets the owner up by its link; the owner invites by link, a member joins, sees what a member may, and is refused at once when removed', async () => {
    const ownerPage = await open()
    // The owner's setup link, as `npm start` prints it.
    await ownerPage.goto(`${t.url}/setup/${t.wren.setupToken}`)
    await ownerPage.fill('#join-email', 'owner@shop.example')
    await ownerPage.fill('#join-name', 'Olga')
    await ownerPage.fill('#join-password', 'owner passphrase')
    await ownerPage.click('form[aria-label="Set up the owner"] button[type=submit]')
    await ownerPage.waitForSelector('nav.menu')
    await ownerPage.goto(`${t.url}/project/${t.projectId}/members`)
    await ownerPage.waitForSelector('tr[data-email="owner@shop.example"]')

    // Two invitations (a member and an admin); the admin's is revoked, its link then opens nothing.
    const invite = async (email: string, level: string): Promise<string> => {
      await ownerPage.fill('#invite-email', email)
      await ownerPage.selectOption('#invite-level', level)
      await ownerPage.click('form[aria-label="Invite"] button[type=submit]')
      const link = ownerPage.locator('input[aria-label="Invite link value"]')
      await ownerPage.waitForFunction((e) => (globalThis as any).document.querySelector('.secret')?.textContent.includes(e), email)
      return link.inputValue()
    }
    const memberLink = await invite('member@shop.example', '1')
    const adminLink = await invite('admin@shop.example', '8')
    expect(memberLink).toMatch(new RegExp(`^${t.url}/signup/[A-Za-z0-9_-]{40,}$`))
    await ownerPage.waitForSelector('table.invites tr[data-email="admin@shop.example"]')
    await ownerPage.click('table.invites tr[data-email="admin@shop.example"] button:has-text("Revoke")')
    await ownerPage.waitForSelector('table.invites tr[data-email="admin@shop.example"]', { state: 'detached' })
    expect(await ownerPage.isVisible('table.invites tr[data-email="member@shop.example"]')).toBe(true)
    await expectDrawn(ownerPage, 'members-owner-desktop', WIDTHS.desktop.width, { maxShare: 0.97 })
    const revoked = await open()
    await revoked.goto(adminLink)
    expect(await (await revoked.waitForSelector('.error')).textContent()).toContain('invalid or has expired')

    // The member joins at 390 px wide: the link sets the password and signs in.
    const memberPage = await open(WIDTHS.phone)
    await memberPage.goto(memberLink)
    expect(await memberPage.textContent('form[aria-label="Accept the invitation"]')).toContain('member@shop.example')
    await expectDrawn(memberPage, 'join-phone', WIDTHS.phone.width, { maxShare: 0.97 })
    await memberPage.fill('#join-password', 'member passphrase')
    await memberPage.click('form[aria-label="Accept the invitation"] button[type=submit]')
    await memberPage.waitForSelector('nav.menu')
    // A member sees the members but cannot invite; settings are read-only; the keys page makes keys within the role.
    await memberPage.goto(`${t.url}/project/${t.projectId}/members`)
    await memberPage.waitForSelector('tr[data-email="member@shop.example"]')
    expect(await memberPage.locator('form[aria-label="Invite"]').count()).toBe(0)
    expect(await memberPage.locator('button:has-text("Remove")').count()).toBe(0)
    await expectDrawn(memberPage, 'members-member-phone', WIDTHS.phone.width, { maxShare: 0.97 })
    await memberPage.goto(`${t.url}/project/${t.projectId}/settings`)
    expect(await memberPage.isDisabled('button:has-text("Save settings")')).toBe(true)
    await memberPage.goto(`${t.url}/project/${t.projectId}/keys`)
    await memberPage.waitForSelector('form[aria-label="Create a key"]')
    expect(await memberPage.locator('select[name=preset] option[value=all]').count()).toBe(0)

    // Signed out and in again with the password, twice over: a second session works as the first did.
    for (let round = 0; round < 2; round++) {
      await memberPage.click('button.signout')
      await memberPage.waitForSelector('#email')
      await memberPage.fill('#email', 'member@shop.example')
      await memberPage.fill('#password', 'member passphrase')
      await memberPage.click('form[aria-label="Sign in"] button[type=submit]')
      await memberPage.waitForSelector('nav.menu')
    }
    const member = (await call('GET', '/api/organizations/@current/members/')).body.results.find(
      (m: { user: { email: string } }) => m.user.email === 'member@shop.example',
    )
    expect(member.last_login).not.toBeNull()

    // The member's own account: the name saved twice, a password change refused with a wrong current one, then made.
    await memberPage.goto(`${t.url}/project/${t.projectId}/account`)
    for (const name of ['Mia', 'Mia M.']) {
      await memberPage.fill('#account-name', name)
      await memberPage.click('form[aria-label="Name"] button[type=submit]')
      await memberPage.waitForSelector('p[role=status]:has-text("Name saved.")')
      await expect
        .poll(async () => (await call('GET', '/api/organizations/@current/members/')).body.results.map((m: Member) => m.user.first_name))
        .toContain(name)
      await memberPage.reload()
      expect(await memberPage.inputValue('#account-name')).toBe(name)
    }
    await memberPage.fill('#current-password', 'not the passphrase')
    await memberPage.fill('#new-password', 'member passphrase 2')
    await memberPage.click('form[aria-label="Password"] button[type=submit]')
    expect(await (await memberPage.waitForSelector('.error')).textContent()).toContain('current password')
    await memberPage.fill('#current-password', 'member passphrase')
    await memberPage.fill('#new-password', 'member passphrase 2')
    await memberPage.click('form[aria-label="Password"] button[type=submit]')
    await memberPage.waitForSelector('p[role=status]:has-text("Password changed")')
    await expectDrawn(memberPage, 'account-member-phone', WIDTHS.phone.width, { maxShare: 0.97 })

    // The owner changes the member's level from the list, to admin and back: the member's menu follows.
    await ownerPage.reload()
    const level = ownerPage.locator('select[aria-label="Level of member@shop.example"]')
    for (const [value, invites] of [
      ['8', 1],
      ['1', 0],
    ] as const) {
      await level.selectOption(value)
      await expect
        .poll(
          async () =>
            (await call('GET', '/api/organizations/@current/members/')).body.results.find(
              (m: Member) => m.user.email === 'member@shop.example',
            ).level,
        )
        .toBe(Number(value))
      await memberPage.goto(`${t.url}/project/${t.projectId}/members`)
      await memberPage.waitForSelector('tr[data-email="owner@shop.example"]')
      expect(await memberPage.locator('form[aria-label="Invite"]').count()).toBe(invites)
    }

    // The owner removes the member: the member's session is refused at the next request.
    await ownerPage.reload()
    await ownerPage.click('tr[data-email="member@shop.example"] button:has-text("Remove")')
    await ownerPage.waitForSelector('tr[data-email="member@shop.example"]', { state: 'detached' })
    await memberPage.goto(`${t.url}/project/${t.projectId}/trends`)
    await memberPage.waitForSelector('#email')
    expect(await memberPage.isVisible('nav.menu')).toBe(false)
  })
})
