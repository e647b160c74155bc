// The authenticated player page (PostHog's app path, /project/:project_id/replay/:session_id) and the script and
// styles both player pages load from Wren itself: services/recordings/player/ (with rrweb-player and its
// stylesheet) bundled by esbuild when first asked for, then kept in memory. Nothing on the pages comes from
// anywhere else.
import { createHash } from 'node:crypto'
import path from 'node:path'
import { build } from 'esbuild'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { routesOf } from '../shared/http/route'
import { PLAYER_SCRIPT_URL, PLAYER_STYLES_URL, replayPage } from './player-page'

const SOURCE = path.join(import.meta.dirname, 'player')

interface Asset {
  bytes: Uint8Array
  etag: string
}

/** The player's script and styles, bundled for browsers from services/recordings/player/. */
async function bundlePlayer(): Promise<{ js: Asset; css: Asset }> {
  const result = await build({
    entryPoints: { player: path.join(SOURCE, 'main.ts'), styles: path.join(SOURCE, 'page.css') },
    outdir: 'bundle',
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: ['chrome110', 'firefox113', 'safari16.4'],
    minify: true,
    legalComments: 'eof',
    tsconfig: path.join(SOURCE, 'tsconfig.json'),
    logLevel: 'silent',
  })
  const asset = (extension: string): Asset => {
    const file = result.outputFiles.find((output) => output.path.endsWith(extension))
    if (!file) throw new Error(`esbuild made no ${extension} for the player`)
    return { bytes: file.contents, etag: `"${createHash('sha256').update(file.contents).digest('base64url').slice(0, 27)}"` }
  }
  return { js: asset('.js'), css: asset('.css') }
}

export async function playerRoutes(app: FastifyInstance): Promise<void> {
  const route = routesOf(app, { projects: null, tag: 'session recordings' })
  let bundle: Promise<{ js: Asset; css: Asset }> | null = null
  const assets = () => {
    // A failed build is not kept: the next request tries again.
    bundle ??= bundlePlayer().catch((error: unknown) => {
      bundle = null
      throw error
    })
    return bundle
  }
  const send = (reply: FastifyReply, asset: Asset, type: string, ifNoneMatch: string | undefined) => {
    reply.type(type).header('cache-control', 'public, max-age=3600').header('etag', asset.etag)
    if (ifNoneMatch === asset.etag) return reply.status(304).send()
    return reply.send(Buffer.from(asset.bytes))
  }

  route({
    method: 'GET',
    url: PLAYER_SCRIPT_URL,
    summary: 'The player pages’ script (rrweb’s player and Wren’s loader, bundled)',
    access: { public: 'no key (loaded by the player pages).' },
    schema: { response: { 200: Type.String({ description: 'JavaScript.' }) } },
    handler: async (request, reply) =>
      send(reply, (await assets()).js, 'application/javascript; charset=utf-8', request.headers['if-none-match']),
  })
  route({
    method: 'GET',
    url: PLAYER_STYLES_URL,
    summary: 'The player pages’ styles (rrweb’s player’s and the page’s)',
    access: { public: 'no key (loaded by the player pages).' },
    schema: { response: { 200: Type.String({ description: 'CSS.' }) } },
    handler: async (request, reply) => send(reply, (await assets()).css, 'text/css; charset=utf-8', request.headers['if-none-match']),
  })
  route({
    method: 'GET',
    url: '/project/:project_id/replay/:session_id',
    summary: 'A page that plays one session recording (HTML)',
    description:
      'The page holds no secret: its script reads a personal API key with `session_recording:read` from the browser’s localStorage (`wren.personalApiKey`; the page asks for one when there is none) and loads the recording through the API with it.',
    access: { public: 'no key: the page’s own requests carry one.' },
    schema: {
      params: Type.Object({
        project_id: Type.Integer({ minimum: 1, description: 'The project (environment) id.' }),
        session_id: Type.String({ description: 'The recording’s session id.' }),
      }),
      response: { 200: Type.String({ description: 'An HTML page.' }) },
    },
    handler: async (request, reply) =>
      reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(replayPage({ projectId: request.params.project_id, sessionId: request.params.session_id })),
  })
}
