// Browser code Wren serves itself (the web app, the recordings player): bundled by esbuild from its source
// and npm packages when first asked for, kept in memory, and answered with an ETag, so `npm start` needs no
// build step and a page loads nothing from anywhere else. One bundle is one script and its styles.
import { createHash } from 'node:crypto'
import { build } from 'esbuild'
import type { FastifyReply } from 'fastify'

export interface Asset {
  bytes: Uint8Array
  etag: string
}

export const etagOf = (bytes: Uint8Array): string => `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`

export interface BundleSource {
  /** For errors: what is being bundled. */
  name: string
  /** esbuild's entry points; together they must make exactly one .js and one .css. */
  entryPoints: Record<string, string>
  tsconfig: string
  /** For TSX sources: the JSX runtime package (e.g. 'preact'). */
  jsxImportSource?: string
}

async function bundle(source: BundleSource): Promise<{ js: Asset; css: Asset }> {
  const result = await build({
    entryPoints: source.entryPoints,
    outdir: 'bundle',
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: ['chrome110', 'firefox113', 'safari16.4'],
    ...(source.jsxImportSource ? { jsx: 'automatic' as const, jsxImportSource: source.jsxImportSource } : {}),
    minify: true,
    legalComments: 'eof',
    tsconfig: source.tsconfig,
    logLevel: 'silent',
  })
  const asset = (extension: string): Asset => {
    const file = result.outputFiles.find((output) => output.path.endsWith(extension))
    if (!file) throw new Error(`esbuild made no ${extension} for ${source.name}`)
    return { bytes: file.contents, etag: etagOf(file.contents) }
  }
  return { js: asset('.js'), css: asset('.css') }
}

/** The bundle, built on the first call and kept; a failed build is not kept (the next call tries again). */
export function browserBundle(source: BundleSource): () => Promise<{ js: Asset; css: Asset }> {
  let built: Promise<{ js: Asset; css: Asset }> | null = null
  return () =>
    (built ??= bundle(source).catch((error: unknown) => {
      built = null
      throw error
    }))
}

/** Answers `asset` with its ETag: 304 when the browser has it already. */
export function sendAsset(reply: FastifyReply, asset: Asset, type: string, cache: string, ifNoneMatch: string | undefined) {
  reply.type(type).header('cache-control', cache).header('etag', asset.etag)
  if (ifNoneMatch === asset.etag) return reply.status(304).send()
  return reply.send(Buffer.from(asset.bytes))
}

export const JS = 'application/javascript; charset=utf-8'
export const CSS = 'text/css; charset=utf-8'
