// Wren's web app (top-level web/): its page at / and at the app's own paths under /project/:project_id/, and
// its script and styles, bundled by esbuild from web/ (Preact, uPlot and their stylesheets, all from npm):
// by `npm run build` for a compiled Wren, or when first asked for from source, so `npm start` needs no build
// step (platform/http/browser-bundle.ts). Nothing comes from elsewhere.
// The page holds no secret: the app calls Wren's public API with the signed-in session's HttpOnly cookie (its
// script never sees a credential) and echoes the session's CSRF token on writes.
import path from 'node:path'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { browserBundle, CSS, etagOf, JS, sendAsset, stylesOf, type Asset, type BundleSource } from '../platform/http/browser-bundle'
import { routesOf } from '../platform/http/route'
import { APP_ROOT } from '../platform/paths'

const SOURCE = path.join(APP_ROOT, 'web')
export const APP_SCRIPT_URL = '/static/wren/app.js'
export const APP_STYLES_URL = '/static/wren/app.css'
/** The SQL editor's script (web/src/components/sql-editor.tsx loads it from here). */
export const SQL_EDITOR_SCRIPT_URL = '/static/wren/sql-editor.js'

/**
 * The app's own pages (web/src/main.tsx): the HTML is served for each, and the app draws the page. Other
 * paths under /project/:project_id/ (the player page, replay/:session_id) stay their own routes.
 */
export const APP_SECTIONS = [
  'home',
  'dashboards',
  'trends',
  'funnels',
  'retention',
  'paths',
  'stickiness',
  'lifecycle',
  'insights',
  'sql',
  'events',
  'persons',
  'feature_flags',
  'surveys',
  'cohorts',
  'actions',
  'recordings',
  'settings',
  'members',
  'account',
  'keys',
] as const

/** The app's script and styles, bundled for browsers from web/. */
export const APP_BUNDLE: BundleSource = {
  name: 'the web app',
  file: 'app',
  entryPoints: { app: path.join(SOURCE, 'src', 'main.tsx') },
  tsconfig: path.join(SOURCE, 'tsconfig.json'),
  jsxImportSource: 'preact',
}
export const bundleApp = browserBundle(APP_BUNDLE)

/** The SQL page's editor (CodeMirror), a bundle of its own: most of the app's weight, and only one page needs it. */
export const SQL_EDITOR_BUNDLE: BundleSource = {
  name: 'the SQL editor',
  file: 'sql-editor',
  entryPoints: { 'sql-editor': path.join(SOURCE, 'src', 'sql-editor', 'index.ts') },
  tsconfig: path.join(SOURCE, 'tsconfig.json'),
}
const bundleSqlEditor = browserBundle(SQL_EDITOR_BUNDLE)

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>Wren</title>
<link rel="stylesheet" href="${APP_STYLES_URL}">
</head>
<body>
<div id="app"><p class="boot">Loading Wren…</p></div>
<noscript>Wren’s web app needs JavaScript.</noscript>
<script src="${APP_SCRIPT_URL}"></script>
</body>
</html>
`
/**
 * The page's Content-Security-Policy: the app acts with a signed-in session (and its sign-in form takes passwords and
 * keys), so only Wren's own script runs and it talks to Wren alone; styles are the bundle's (Preact and uPlot set styles through the DOM, which a
 * policy does not govern); never framed (a page that takes a key is a clickjacking target).
 */
export const APP_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ')

const PAGE_ETAG = etagOf(new TextEncoder().encode(PAGE))

export async function webRoutes(app: FastifyInstance): Promise<void> {
  const route = routesOf(app, { projects: null, tag: 'web app' })

  // The script and styles change with Wren's version, and the page names them without one: browsers revalidate.
  const ASSET_CACHE = 'no-cache'

  route({
    method: 'GET',
    url: APP_SCRIPT_URL,
    summary: 'The web app’s script (Preact, uPlot and the app, bundled)',
    access: { public: 'no key (loaded by the web app’s page).' },
    schema: { response: { 200: Type.String({ description: 'JavaScript.' }) } },
    handler: async (request, reply) => sendAsset(request, reply, (await bundleApp()).js, JS, ASSET_CACHE),
  })
  route({
    method: 'GET',
    url: APP_STYLES_URL,
    summary: 'The web app’s styles',
    access: { public: 'no key (loaded by the web app’s page).' },
    schema: { response: { 200: Type.String({ description: 'CSS.' }) } },
    handler: async (request, reply) => sendAsset(request, reply, stylesOf(await bundleApp(), APP_BUNDLE), CSS, ASSET_CACHE),
  })

  route({
    method: 'GET',
    url: SQL_EDITOR_SCRIPT_URL,
    summary: 'The web app’s SQL editor (CodeMirror, bundled; the SQL page loads it)',
    access: { public: 'no key (loaded by the web app’s SQL page).' },
    schema: { response: { 200: Type.String({ description: 'JavaScript.' }) } },
    handler: async (request, reply) => sendAsset(request, reply, (await bundleSqlEditor()).js, JS, ASSET_CACHE),
  })

  const page: Asset = { bytes: new TextEncoder().encode(PAGE), etag: PAGE_ETAG }
  const sendPage = (request: FastifyRequest, reply: FastifyReply) =>
    sendAsset(request, reply.header('content-security-policy', APP_POLICY), page, 'text/html; charset=utf-8', 'no-cache')
  route({
    method: 'GET',
    url: '/',
    summary:
      'Wren’s web app (HTML): sign in with an email and a password (or a personal API key), then trends, events, persons, flags, recordings',
    access: { public: 'no key: the app’s own requests carry one.' },
    schema: { response: { 200: Type.String({ description: 'An HTML page.' }) } },
    handler: async (request, reply) => sendPage(request, reply),
  })
  // A project's own address (PostHog's /project/:id, what people type): the page, which opens the project's first page.
  route({
    method: 'GET',
    url: '/project/:project_id',
    summary: 'A project in the web app (HTML): opens on its home dashboard, or the first page the key may read',
    access: { public: 'no key: the app’s own requests carry one.' },
    schema: {
      params: Type.Object({ project_id: Type.Integer({ minimum: 1, description: 'The project (environment) id.' }) }),
      response: { 200: Type.String({ description: 'An HTML page.' }) },
    },
    handler: async (request, reply) => sendPage(request, reply),
  })
  // The links that let a person in: an invitation's, and the owner's setup link (accounts/routes.ts).
  for (const url of ['/signup/:token', '/setup/:token'])
    route({
      method: 'GET',
      url,
      summary: url.startsWith('/signup') ? 'An invitation’s link (HTML): set a password and join' : 'The owner’s setup link (HTML)',
      access: { public: 'the link’s token, which the page sends to /api/signup/:token/.' },
      schema: {
        params: Type.Object({ token: Type.String({ maxLength: 100 }) }),
        response: { 200: Type.String({ description: 'An HTML page.' }) },
      },
      handler: async (request, reply) => sendPage(request, reply),
    })
  // Each of the app's pages, and one thing in it (a person, a flag): the page again, and the app routes it.
  const Section = Type.Enum([...APP_SECTIONS], { description: `The app's page: ${APP_SECTIONS.join(', ')}.` })
  for (const url of ['/project/:project_id/:section', '/project/:project_id/:section/:item'])
    route({
      method: 'GET',
      url,
      summary: url.endsWith(':item')
        ? 'One thing in the web app (a person, a flag, …): its page (HTML)'
        : 'One of the web app’s pages (HTML)',
      access: { public: 'no key: the app’s own requests carry one.' },
      schema: {
        params: Type.Object({
          project_id: Type.Integer({ minimum: 1, description: 'The project (environment) id.' }),
          section: Section,
          ...(url.endsWith(':item')
            ? { item: Type.String({ description: 'A person’s uuid, a flag’s, cohort’s or action’s id, or new.' }) }
            : {}),
        }),
        response: { 200: Type.String({ description: 'An HTML page.' }) },
      },
      handler: async (request, reply) => sendPage(request, reply),
    })
}
