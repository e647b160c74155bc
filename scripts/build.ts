// `npm run build [out]`: Wren as plain JavaScript in out (default dist/), for `node dist/services/main.js`
// without tsx and for the image (infra/wren.Dockerfile). out is self-contained but for node_modules (found
// in out's parent directories, as Node resolves packages):
//   services/main.js, services/compute-worker.js   the server and the ingestion worker, each one bundle
//                                                   of Wren's TypeScript (npm packages stay imports)
//   browser/app.{js,css}, browser/player.{js,css}  the web app and the recordings player, bundled
//   browser/sql-editor.js                           the web app's SQL editor (loaded by its SQL page)
//   schemas/                                        the Avro and ClickHouse schemas read at run time
//   package.json                                    name, version, and "type": "module"
// services/platform/paths.ts finds the root of either layout. `npm start` keeps running from source.
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { build } from 'esbuild'
import { bundle, type BundleSource } from '../services/platform/http/browser-bundle'
import { APP_BUNDLE, SQL_EDITOR_BUNDLE } from '../services/web/routes'
import { PLAYER_BUNDLE } from '../services/recordings/player-routes'

const ROOT = path.resolve(import.meta.dirname, '..')
const out = path.resolve(process.argv[2] ?? path.join(ROOT, 'dist'))
const started = Date.now()

await rm(out, { recursive: true, force: true })
await build({
  absWorkingDir: ROOT,
  entryPoints: { 'services/main': 'services/main.ts', 'services/compute-worker': 'services/ingestion/compute-worker.ts' },
  outdir: out,
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
})

const browser = path.join(out, 'browser')
await mkdir(browser, { recursive: true })
for (const source of [APP_BUNDLE, SQL_EDITOR_BUNDLE, PLAYER_BUNDLE] satisfies BundleSource[]) {
  const { js, css } = await bundle(source)
  await writeFile(path.join(browser, `${source.file}.js`), js.bytes)
  if (css) await writeFile(path.join(browser, `${source.file}.css`), css.bytes)
}

await cp(path.join(ROOT, 'schemas'), path.join(out, 'schemas'), { recursive: true })
const { name, version } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string }
await writeFile(path.join(out, 'package.json'), `${JSON.stringify({ name, version, private: true, type: 'module' }, null, 2)}\n`)

console.log(
  `wren: built ${path.relative(process.cwd(), out) || '.'} in ${((Date.now() - started) / 1000).toFixed(1)} s: node ${path.relative(process.cwd(), path.join(out, 'services', 'main.js'))} start`,
)
