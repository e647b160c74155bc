// Browser code Wren serves itself (the web app, the SQL editor, the recordings player): one bundle is one script
// and its styles (if it has any), kept in memory and answered with an ETag, so a page loads nothing from anywhere else. A compiled
// Wren (`npm run build`, scripts/build.ts) reads the bundles the build made (browser/ in its root); from
// source (`npm start`) esbuild bundles them from their source and npm packages when first asked for, so
// there is no build step.
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'
import { build } from 'esbuild'
import negotiate from '@fastify/accept-negotiator'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { APP_ROOT } from '../paths'

export interface Asset {
  bytes: Uint8Array
  etag: string
}

export const etagOf = (bytes: Uint8Array): string => `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`

export interface BundleSource {
  /** For errors: what is being bundled. */
  name: string
  /** The built bundle's file names: browser/<file>.js and browser/<file>.css. */
  file: string
  /** esbuild's entry points; together they must make exactly one .js and at most one .css. */
  entryPoints: Record<string, string>
  tsconfig: string
  /** For TSX sources: the JSX runtime package (e.g. 'preact'). */
  jsxImportSource?: string
}

/** Where a build keeps the bundles (scripts/build.ts writes them). */
export const BUILT_BUNDLES = path.join(APP_ROOT, 'browser')

/** A bundle's script, and its styles (null: it has none). */
export interface Bundle {
  js: Asset
  css: Asset | null
}

/** The bundle, made by esbuild from its source. */
export async function bundle(source: BundleSource): Promise<Bundle> {
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
  const asset = (extension: string): Asset | null => {
    const file = result.outputFiles.find((output) => output.path.endsWith(extension))
    return file ? { bytes: file.contents, etag: etagOf(file.contents) } : null
  }
  const js = asset('.js')
  if (!js) throw new Error(`esbuild made no script for ${source.name}`)
  return { js, css: asset('.css') }
}

/** The bundle a build made, or null when there is none (running from source). */
async function builtBundle(source: BundleSource): Promise<Bundle | null> {
  const read = async (extension: string): Promise<Asset | null> => {
    try {
      const bytes = await readFile(path.join(BUILT_BUNDLES, `${source.file}${extension}`))
      return { bytes, etag: etagOf(bytes) }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw error
    }
  }
  const [js, css] = await Promise.all([read('.js'), read('.css')])
  return js ? { js, css } : null
}

/**
 * The bundle, the build's when there is one, else bundled from source on the first call; kept either way.
 * A failed bundling is not kept (the next call tries again).
 */
export function browserBundle(source: BundleSource): () => Promise<Bundle> {
  let built: Promise<Bundle> | null = null
  return () =>
    (built ??= builtBundle(source)
      .then((found) => found ?? bundle(source))
      .catch((error: unknown) => {
        built = null
        throw error
      }))
}

type Encoding = 'br' | 'gzip'
/** Brotli first: smaller than gzip (posthog-js's array.js: 380 KB as it is, 122 KB gzip -9, 102 KB brotli 11). */
const ENCODINGS: Encoding[] = ['br', 'gzip']
const brotli = promisify(brotliCompress)
const gzipped = promisify(gzip)
/** Each asset's encoded bytes, made once at the strongest setting (an asset is sent many times, encoded once). */
const encoded = new WeakMap<Asset, Map<Encoding, Promise<Buffer>>>()

function encode(asset: Asset, encoding: Encoding): Promise<Buffer> {
  let variants = encoded.get(asset)
  if (!variants) encoded.set(asset, (variants = new Map()))
  let bytes = variants.get(encoding)
  if (!bytes) {
    bytes =
      encoding === 'br'
        ? brotli(asset.bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } })
        : gzipped(asset.bytes, { level: 9 })
    variants.set(encoding, bytes)
  }
  return bytes
}

/**
 * Answers `asset` with its ETag (304 when the browser has it already), brotli- or gzip-encoded when the
 * browser takes it. Each encoding has its own ETag (a strong ETag names exact bytes), and `Vary` says the
 * answer depends on Accept-Encoding.
 */
export async function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset, type: string, cache: string) {
  const accepted = request.headers['accept-encoding']
  const encoding = asset.bytes.length >= 1024 && accepted ? negotiate(accepted, ENCODINGS) : null
  const etag = encoding ? `${asset.etag.slice(0, -1)}-${encoding}"` : asset.etag
  reply.type(type).header('cache-control', cache).header('etag', etag).header('vary', 'accept-encoding')
  if (request.headers['if-none-match'] === etag) return reply.status(304).send()
  if (!encoding) return reply.send(Buffer.from(asset.bytes))
  return reply.header('content-encoding', encoding).send(await encode(asset, encoding))
}

/** A bundle's styles: a bundle that has none was built wrong (its source imports no stylesheet). */
export function stylesOf(bundle: Bundle, source: BundleSource): Asset {
  if (!bundle.css) throw new Error(`${source.name} has no styles`)
  return bundle.css
}

export const JS = 'application/javascript; charset=utf-8'
export const CSS = 'text/css; charset=utf-8'
