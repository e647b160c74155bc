// The posthog-js bundles PostHog serves from its API host, served by Wren from the posthog-js package:
// PostHog's HTML snippet loads `${api_host}/static/array.js`, and posthog-js loads its lazy parts (the
// recorder, surveys, exception autocapture, web vitals, dead clicks, tracing headers, …) as
// `/static/<kind>.js?v=<version>`, or `/static/<version>/<kind>.js` with `strict_script_versioning` (and
// the loader's `data-sdk-version`, a major or full version). The names served are the bundles the package
// itself lists in dist/integrity.json, nothing else: a name is looked up in that list, never joined to a path.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { Type } from 'typebox'
import { wrenError } from '../platform/errors'
import { routesOf } from '../platform/http/route'
import { JS, sendAsset, type Asset } from '../platform/http/browser-bundle'

const require = createRequire(import.meta.url)
const DIST = path.join(path.dirname(require.resolve('posthog-js/package.json')), 'dist')
const { version: VERSION, files } = JSON.parse(readFileSync(path.join(DIST, 'integrity.json'), 'utf8')) as {
  version: string
  files: Record<string, string>
}
/** Bundle name → its subresource-integrity hash (the ETag). */
const BUNDLES = new Map(Object.entries(files).filter(([name]) => name.endsWith('.js')))
/** The versions a versioned path may name: the package's own, full or major (what the loader accepts). */
const VERSIONS = new Set([VERSION, VERSION.split('.')[0]])

/** A name that says its version is that version's for good; a bare name changes when Wren's posthog-js does. */
const IMMUTABLE = 'public, max-age=31536000, immutable'
const REVALIDATE = 'public, max-age=3600'

export async function staticRoutes(app: FastifyInstance): Promise<void> {
  const route = routesOf(app, { projects: null, tag: 'sdk' })
  const assets = new Map<string, Promise<Asset>>()
  const asset = (name: string, hash: string) => {
    let found = assets.get(name)
    if (!found) assets.set(name, (found = readFile(path.join(DIST, name)).then((bytes) => ({ bytes, etag: `"${hash}"` }))))
    return found
  }

  const send = async (request: FastifyRequest, reply: FastifyReply, name: string, versioned: boolean) => {
    const hash = BUNDLES.get(name)
    if (hash === undefined) throw wrenError('not_found', `No posthog-js bundle ${name} here (Wren serves posthog-js ${VERSION}).`)
    return sendAsset(request, reply, await asset(name, hash), JS, versioned ? IMMUTABLE : REVALIDATE)
  }

  const description = `The posthog-js ${VERSION} bundles: ${[...BUNDLES.keys()].join(', ')}. Any other name is a 404.`
  const Script = Type.String({ description: 'JavaScript: the posthog-js package’s file, byte for byte.' })
  const Query = Type.Object({
    v: Type.Optional(Type.String({ description: 'The posthog-js version asking (cache busting).' })),
    t: Type.Optional(Type.String({ description: 'Cache busting (the toolbar’s).' })),
  })
  route({
    method: 'GET',
    url: '/static/:file',
    summary: 'A posthog-js bundle (array.js for the HTML snippet, the lazily loaded recorder, surveys, …)',
    description,
    access: { public: 'no key (loaded by posthog-js and its HTML snippet from any site).' },
    schema: {
      params: Type.Object({ file: Type.String({ description: 'The bundle’s name, such as array.js or lazy-recorder.js.' }) }),
      querystring: Query,
      response: { 200: Script },
    },
    handler: (request, reply) => send(request, reply, request.params.file, request.query.v === VERSION),
  })
  route({
    method: 'GET',
    url: '/static/:version/:file',
    summary: 'A posthog-js bundle by version (strict_script_versioning, the loader’s data-sdk-version)',
    description,
    access: { public: 'no key (loaded by posthog-js from any site).' },
    schema: {
      params: Type.Object({
        version: Type.String({ description: `posthog-js's version, ${VERSION} or its major ${[...VERSIONS][1]}; any other is a 404.` }),
        file: Type.String({ description: 'The bundle’s name.' }),
      }),
      querystring: Query,
      response: { 200: Script },
    },
    handler: (request, reply) => {
      const { version, file } = request.params
      if (!VERSIONS.has(version)) throw wrenError('not_found', `Wren serves posthog-js ${VERSION}, not ${version}.`)
      return send(request, reply, file, version === VERSION)
    },
  })
}
