// vitest's globalSetup: what every Wren a test starts can share, made once per run, beside the first tests.
//   migrated   a chDB with every migration applied, copied into each in-process Wren's new data directory
//              (startWren): 28 migrations on an empty chDB take 1.4–1.8 s of a test's start, a copy 0.1 s, and
//              Wren's start still runs `migrate`, which finds them applied
//   build      `npm run build` of this checkout (only in a run of the kafka or processes group), which
//              child-process Wrens and CLI commands run (spawnWren, wrenEntry) as the image does:
//              one starts on 2.2 s of CPU, against 3.8 s from source through tsx (whose ingestion worker
//              compiles Wren's TypeScript again on its own thread)
//   kafka      a Kafka broker (only in a run of the kafka group), which each kafka file uses under a topic prefix
//              of its own (kafkaForThisFile in ./kafka.ts): one JVM start per run rather than one per file
// Each is made by a child process (chDB allows one engine per process, and the tests need not wait for what
// they do not use); a test waits for what it uses (prepared() in ./wren.ts). The path of the run's directory
// reaches the test processes in WREN_TEST_PREPARED.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { kafkaUnavailableReason, startKafka, type KafkaBroker } from './kafka'

const repoRoot = path.resolve(import.meta.dirname, '../..')

function make(root: string, name: string, args: string[], then: () => void = () => {}): Promise<void> {
  return new Promise((resolve) => {
    let output = ''
    const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    child.on('close', (code) => {
      try {
        if (code !== 0) throw new Error(`making ${name} for the tests failed (exit ${code}):\n${output}`)
        then()
        writeFileSync(path.join(root, `${name}.done`), '')
      } catch (err) {
        writeFileSync(path.join(root, `${name}.failed`), String(err))
      }
      resolve()
    })
  })
}

/** The groups (vitest.config.ts) whose files start Wren as a child process: only a run of one of them builds. */
const SPAWNING = new Set(['kafka', 'processes'])

/**
 * Called for the root and for each project (group) that has files to run, all in vitest's one main process: the
 * first call makes the directory and the migrated chDB, the first call for a spawning group the build.
 */
export default function setup(project: { name: string }): () => Promise<void> {
  // Shared by every call (vitest may load this module once per project).
  const made = ((globalThis as { wrenRunSetup?: Array<Promise<void>> }).wrenRunSetup ??= [])
  let root = process.env.WREN_TEST_PREPARED
  if (!root) {
    root = mkdtempSync(path.join(tmpdir(), 'wren-run-'))
    process.env.WREN_TEST_PREPARED = root
    made.push(
      make(root, 'migrated', ['--import', 'tsx', path.join(import.meta.dirname, 'migrate-template.ts'), path.join(root, 'migrated')]),
    )
  }
  if (SPAWNING.has(project.name) && !process.env.WREN_TEST_BUILD) {
    process.env.WREN_TEST_BUILD = '1'
    // A test process asks for the build only when this says it is coming (prepared() in ./wren.ts).
    writeFileSync(path.join(root, 'build.started'), '')
    const app = path.join(root, 'build')
    // The image puts node_modules beside the build.
    made.push(
      make(root, 'build', ['--import', 'tsx', path.join(repoRoot, 'scripts/build.ts'), app], () =>
        symlinkSync(path.join(repoRoot, 'node_modules'), path.join(app, 'node_modules')),
      ),
    )
  }
  let broker: Promise<KafkaBroker | null> = Promise.resolve(null)
  if (project.name === 'kafka' && kafkaUnavailableReason() === null) {
    // A kafka file waits for the address only when this says the broker is coming.
    writeFileSync(path.join(root, 'kafka.started'), '')
    const at = root
    broker = startKafka().then(
      (started) => {
        // The address, then the mark a test waits for (prepared('kafka') in ./wren.ts).
        writeFileSync(path.join(at, 'kafka'), started.brokers)
        writeFileSync(path.join(at, 'kafka.done'), '')
        return started
      },
      (err: unknown) => {
        writeFileSync(path.join(at, 'kafka.failed'), String(err))
        return null
      },
    )
  }
  const dir = root
  return async () => {
    await Promise.all(made)
    await (await broker)?.stop()
    // With the root's teardown, after every test of the run, the directory goes.
    if (project.name === '') {
      rmSync(dir, { recursive: true, force: true })
      delete process.env.WREN_TEST_PREPARED
      delete process.env.WREN_TEST_BUILD
    }
  }
}
