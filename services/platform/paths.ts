// Where Wren's own files are at run time. From source (`npm start`, tsx) this module is
// services/platform/paths.ts and the root is the repository; compiled (`npm run build`, scripts/build.ts)
// every module is bundled into <out>/services/main.js (or compute-worker.js) and the root is <out>, which
// the build makes self-contained: its own package.json, schemas/ and the browser bundles in browser/.
import path from 'node:path'
import { pathToFileURL } from 'node:url'

/** True in the compiled build (a .js bundle), false when running the TypeScript through tsx. */
export const COMPILED = import.meta.url.endsWith('.js')

/** The directory holding package.json, schemas/ and, in a build, browser/. */
export const APP_ROOT = path.resolve(import.meta.dirname, COMPILED ? '..' : path.join('..', '..'))

/** A file or directory under the root, as a URL (for readFileSync and new URL(file, dir)); a directory ends with /. */
export const appUrl = (relative: string): URL => pathToFileURL(path.join(APP_ROOT, relative))
