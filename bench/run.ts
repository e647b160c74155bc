// `npm run bench` — runs the benchmarks and prints figures next to references measured in the same run.
// Benchmarks print, they never assert: the machines are shared and noisy.
//
//   npm run bench                       capture (/batch/ throughput and /e/ latency) and ingestion
//   npm run bench -- capture            1 and 2 only          npm run bench -- batch | single | ingest
//   npm run bench -- log                the embedded log micro-benchmark (bench/embedded-log.ts)
//   npm run bench -- recordings         snapshots through /s/, storage per minute, the list (bench/recordings.ts)
//   npm run bench -- pages              the web app's page loads in Chromium with 1 M events stored (bench/pages.ts)
//   npm run bench -- breakdown          a 1 M-value hourly breakdown and /_health meanwhile (bench/breakdown.ts)
//   npm run bench -- hogql              HogQL parse + print, and HogQL against hand-written SQL (bench/hogql.ts)
//   npm run bench -- funnels            a 4-step funnel, each viz type, against windowFunnel SQL (bench/funnels.ts)
//   npm run bench -- paths              page-view paths against hand-written SQL of the same edges (bench/paths.ts)
//   npm run bench -- retention          daily and weekly first-time retention against hand-written SQL (bench/retention.ts)
//   npm run bench -- accounts           a signed-in request by key and by session, and a sign-in (bench/accounts.ts)
//   npm run bench -- <name> [args]      any other bench/<name>.ts, run as its own process
//   options: --trials N (3)  --seconds S per load run (5)  --events N for ingestion (100000)
//            recordings: --sessions N (100)  --minutes M per session (5)  --recordings N listed (100000)
//                        --load-mb N of the loaded run (100)  --connections N of the loaded run (64)
//                        --gzip: /s/ bodies gzip'd, as posthog-js sends them once Wren's config offers gzip-js
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { cpus } from 'node:os'
import path from 'node:path'
import { runCapture } from './capture'
import { runIngest } from './ingest'
import { runRecordings } from './recordings'
import { loadAverage, repoRoot } from './support'

const args = process.argv.slice(2)
const option = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`)
  if (i < 0) return fallback
  const value = Number(args[i + 1])
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`)
  args.splice(i, 2)
  return value
}
const flag = (name: string) => {
  const i = args.indexOf(`--${name}`)
  if (i >= 0) args.splice(i, 1)
  return i >= 0
}
const trials = option('trials', 3)
const seconds = option('seconds', 5)
const events = option('events', 100_000)
const sessions = option('sessions', 100)
const minutes = option('minutes', 5)
const recordings = option('recordings', 100_000)
const loadMb = option('load-mb', 100)
const connections = option('connections', 64)
const gzip = flag('gzip')
const name = args.shift() ?? 'all'

const started = performance.now()
console.log(
  `Wren benchmarks — ${new Date().toISOString()}, node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model.trim() ?? '?'}), load average ${loadAverage()}` +
    `\nmedians of ${trials} runs; figures and their references measured in the same run; nothing is asserted`,
)

async function runScript(script: string, scriptArgs: string[]): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...scriptArgs], { cwd: repoRoot, stdio: 'inherit' })
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(script)} exited with ${code}`))))
  })
}

switch (name) {
  case 'all':
    await runCapture({ trials, seconds, parts: new Set(['batch', 'single']) })
    await runIngest({ trials, events })
    break
  case 'capture':
    await runCapture({ trials, seconds, parts: new Set(['batch', 'single']) })
    break
  case 'batch':
  case 'single':
    await runCapture({ trials, seconds, parts: new Set([name]) })
    break
  case 'ingest':
    await runIngest({ trials, events })
    break
  case 'recordings':
    await runRecordings({ trials, sessions, minutes, recordings, gzip, loadMb, connections })
    break
  case 'log':
    console.log('')
    await runScript(path.join(repoRoot, 'bench/embedded-log.ts'), args)
    break
  default: {
    const script = path.join(repoRoot, 'bench', `${name}.ts`)
    if (!/^[a-z][a-z0-9-]*$/.test(name) || !existsSync(script)) {
      console.error(
        `unknown benchmark ${JSON.stringify(name)}: use capture, batch, single, ingest, recordings, log, or the name of a bench/*.ts script`,
      )
      process.exit(2)
    }
    console.log('')
    await runScript(script, args)
  }
}

console.log(`\ntotal ${((performance.now() - started) / 1000).toFixed(0)} s; load average at the end ${loadAverage()}`)
