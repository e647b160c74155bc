// The OpenAPI document at /api/schema/: a valid OpenAPI 3 document (checked by an OpenAPI validator), in
// JSON and YAML, that lists every route the router has; and the reference page at /api/schema/docs/,
// which a real browser renders from that document without one request to another origin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Validator } from '@seriousme/openapi-schema-validator'
import { startWren, type TestWren } from '../support/wren'
import { chromiumMissing, launchChromium } from '../support/chromium'
import { skipReason } from '../support/skip'

const noBrowser = skipReason('openapi reference page', chromiumMissing())

type Document = {
  openapi: string
  paths: Record<
    string,
    Record<
      string,
      { security?: unknown[]; description?: string; 'x-required-scopes'?: string[]; parameters?: Array<{ in: string; name: string }> }
    >
  >
}

describe('the OpenAPI document', () => {
  let t: TestWren
  let doc: Document

  beforeAll(async () => {
    t = await startWren()
    const res = await fetch(`${t.url}/api/schema/`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    doc = (await res.json()) as Document
  })
  afterAll(async () => {
    await t?.close()
  })

  it('is a valid OpenAPI 3 document, in JSON and in YAML, served without a key', async () => {
    expect(doc.openapi).toMatch(/^3\./)
    const json = await new Validator().validate(doc)
    expect(json.errors ?? []).toEqual([])
    expect(json.valid).toBe(true)

    const yaml = await fetch(`${t.url}/api/schema/?format=yaml`)
    expect(yaml.status).toBe(200)
    expect(yaml.headers.get('content-type')).toMatch(/^application\/yaml/)
    const validator = new Validator()
    const fromYaml = await validator.validate(await yaml.text())
    expect(fromYaml.valid).toBe(true)
    expect(validator.specification).toEqual(doc)
  })

  it('lists every route the router has, with its methods', () => {
    const routes = t.wren.routes
    expect(routes.length).toBeGreaterThan(100)
    const missing = routes
      .filter((r) => doc.paths[r.url.replace(/:(\w+)/g, '{$1}')]?.[r.method.toLowerCase()] === undefined)
      .map((r) => `${r.method} ${r.url}`)
    expect(missing).toEqual([])
  })

  it('names the key and scope each management route needs, and declares both URL prefixes', () => {
    const persons = doc.paths['/api/projects/{project_id}/persons/{id}/']
    expect(persons.get.security).toEqual([{ PersonalAPIKey: [] }])
    expect(persons.get.description).toContain('`person:read`')
    expect(persons.patch.description).toContain('`person:write`')
    // The same scope as a field a client can read (the app's keys page lists the scopes routes check first).
    expect([persons.get['x-required-scopes'], persons.patch['x-required-scopes']]).toEqual([['person:read'], ['person:write']])
    expect(doc.paths['/flags'].post['x-required-scopes']).toBeUndefined()
    expect(doc.paths['/api/environments/{project_id}/persons/{id}/'].get).toEqual(persons.get)
    // SDK routes are public: the project API key travels in the payload.
    expect(doc.paths['/flags'].post.security).toBeUndefined()
    expect(doc.paths['/e'].post.security).toBeUndefined()
    expect(doc.paths['/api/projects/{project_id}/events/'].get.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(
      expect.arrayContaining(['path:project_id', 'query:limit', 'query:event']),
    )
  })

  it.skipIf(noBrowser)(
    'renders a reference page that loads nothing from another origin',
    async () => {
      const browser = await launchChromium()
      try {
        const page = await browser.newPage()
        const requested: string[] = []
        page.on('request', (r) => void requested.push(r.url()))
        // A deep link to one operation (the page sets deepLinking). Swagger UI (≥ 5.33) virtualizes the
        // operations list once tags + operations reach 150 rows, so only the rows near the viewport are in
        // the DOM: an operation further down appears when scrolled to, as the link does, not on load.
        const res = await page.goto(`${t.url}/api/schema/docs/#/persons/get_api_projects__project_id__persons__id__`)
        expect(res?.status()).toBe(200)
        // Swagger UI fetched the document, drew the operation and opened it.
        const operation = page.locator('#operations-persons-get_api_projects__project_id__persons__id__')
        await operation
          .locator('.opblock-summary-path', { hasText: '/api/projects/{project_id}/persons/{id}/' })
          .waitFor({ timeout: 100_000 })
        await expect.poll(() => operation.getAttribute('class')).toContain('is-open')
        expect(await page.title()).toBe('Wren API reference')
        expect(requested).toContain(`${t.url}/api/schema/`)
        const elsewhere = requested.filter((url) => new URL(url).origin !== t.url && !url.startsWith('data:'))
        expect(elsewhere).toEqual([])
      } finally {
        await browser.close()
      }
      // Swagger UI reads the whole document (800 KB, every schema inline) before it draws: 15–28 s at a load of 17,
      // and CI runs three browsers beside the other files.
    },
    120_000,
  )
})
