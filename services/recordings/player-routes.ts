// The authenticated player page (PostHog's app path, /project/:project_id/replay/:session_id) and the script and
// styles both player pages load from Wren itself: services/recordings/player/ (with rrweb-player and its
// stylesheet) bundled by esbuild, by `npm run build` or from source when first asked for, then kept in memory
// (platform/http/browser-bundle.ts). Nothing on the pages comes from anywhere else.
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { wrenError } from '../platform/errors'
import type { Tenants } from '../platform/tenancy'
import { Type } from 'typebox'
import { browserBundle, CSS, JS, sendAsset, stylesOf, type BundleSource } from '../platform/http/browser-bundle'
import { routesOf } from '../platform/http/route'
import { APP_ROOT } from '../platform/paths'
import { PLAYER_SCRIPT_URL, PLAYER_STYLES_URL, playerPolicy, replayPage } from './player-page'

const SOURCE = path.join(APP_ROOT, 'services', 'recordings', 'player')

/** The player's script and styles, bundled for browsers from services/recordings/player/. */
export const PLAYER_BUNDLE: BundleSource = {
  name: 'the recordings player',
  file: 'player',
  entryPoints: { player: path.join(SOURCE, 'main.ts'), styles: path.join(SOURCE, 'page.css') },
  tsconfig: path.join(SOURCE, 'tsconfig.json'),
}
const bundlePlayer = browserBundle(PLAYER_BUNDLE)

export async function playerRoutes(app: FastifyInstance, deps: { projects: Tenants }): Promise<void> {
  const route = routesOf(app, { projects: null, tag: 'session recordings' })

  // The pages name the script and styles without a version: browsers revalidate (ETag) rather than keep a stale player.
  const CACHE = 'no-cache'

  route({
    method: 'GET',
    url: PLAYER_SCRIPT_URL,
    summary: 'The player pages’ script (rrweb’s player and Wren’s loader, bundled)',
    access: { public: 'no key (loaded by the player pages).' },
    schema: { response: { 200: Type.String({ description: 'JavaScript.' }) } },
    handler: async (request, reply) => sendAsset(request, reply, (await bundlePlayer()).js, JS, CACHE),
  })
  route({
    method: 'GET',
    url: PLAYER_STYLES_URL,
    summary: 'The player pages’ styles (rrweb’s player’s and the page’s)',
    access: { public: 'no key (loaded by the player pages).' },
    schema: { response: { 200: Type.String({ description: 'CSS.' }) } },
    handler: async (request, reply) => sendAsset(request, reply, stylesOf(await bundlePlayer(), PLAYER_BUNDLE), CSS, CACHE),
  })
  route({
    method: 'GET',
    url: '/project/:project_id/replay/:session_id',
    summary: 'A page that plays one session recording (HTML)',
    description:
      'The page holds no secret: its script loads the recording through the API with the web app’s signed-in session (an HttpOnly cookie; without one, the page asks for a personal API key with `session_recording:read` and opens a session with it). posthog-js’s `get_session_replay_url()` names the project by its token (`/project/phc_…/replay/…`): that link is redirected to the project’s id, `?t=` kept.',
    access: { public: 'no key: the page’s own requests carry one.' },
    schema: {
      params: Type.Object({
        project_id: Type.String({ description: 'The project (environment) id, or its project API token.' }),
        session_id: Type.String({ description: 'The recording’s session id.' }),
      }),
      querystring: Type.Object({
        t: Type.Optional(Type.Integer({ minimum: 0, description: 'Seconds into the recording to start playing at.' })),
      }),
      response: { 200: Type.String({ description: 'An HTML page.' }), 302: Type.Null({ description: 'To the page by project id.' }) },
    },
    handler: async (request, reply) => {
      const { project_id: project, session_id: sessionId } = request.params
      const startAt = request.query.t ?? 0
      if (!/^\d+$/.test(project)) {
        const found = deps.projects.byToken(project)
        if (!found) throw wrenError('not_found', 'No project has this id or token.', 'project_id')
        const at = startAt > 0 ? `?t=${startAt}` : ''
        return reply.redirect(`/project/${found.id}/replay/${encodeURIComponent(sessionId)}${at}`, 302)
      }
      const projectId = Number(project)
      if (!Number.isSafeInteger(projectId) || projectId < 1) throw wrenError('not_found', 'No project has this id or token.', 'project_id')
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-security-policy', playerPolicy('authenticated'))
        .send(replayPage({ projectId, sessionId, startAt }))
    },
  })
}
