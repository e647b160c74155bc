import { accessSync, constants, readFileSync, readdirSync, statSync, statfsSync } from 'node:fs'
import path from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'
import { defineConfig } from 'vitest/config'

// The files fall into groups by what they start, read from their text, so a new file joins its group by itself:
//   kafka       a real Kafka broker (cluster mode)
//   browser     headless Chromium
//   alone       a file that counts its process's threads (/proc/self/task), which files run before it in the
//               same process would have left (chDB's pools)
//   unit        the rest of services/ and web/: the code beside its tests (some on an in-process chDB)
//   processes   the rest of test/ that starts a child process: Wren (crash and restart tests, the CLI), Python,
//               the ClickHouse HTTP fixture; and test/deploy/
//   in-process  the rest of test/: a Wren in the test's own process on chDB, driven through its API and real SDKs
// `npm run test:quick` runs unit, alone and in-process (no browser, broker or child processes); `npm test` runs all.
//
// Each file of kafka and alone runs in a forked process of its own. The files of the other groups share their
// group's forked processes, one file after another (isolate: false): a file's imports (the app's modules through
// vite, ~1 s of CPU) are made once per process rather than once per file, which took test:quick's CPU from 440
// to 310 s, and the browser group's from 150 to 115 s and the processes group's from 392 to 360 s. chDB allows
// one engine per process, and can open another once the first is closed: every in-process Wren closes its engine
// (TestWren.close) before the next file starts one. A kafka file starts several Wrens of a cluster in its process.
// The kafka, browser and processes files mostly wait (for a broker, a browser, a child process), so three files
// run at once on two cores, and those groups start first (WaitingFirst): the longest files are there, and the
// short ones fill in around them.

// The suite's scratch data (every Wren's chDB, the brokers' logs, the fixtures) goes to the machine's tmpfs when
// it has one, unless TMPDIR names a place: each insert and merge writes a part's files, and creating inodes on
// ext4 where thousands were just deleted (every test's data directory) scans for recently freed ones, which
// was 15-20 % of a funnel file's CPU (perf: __ext4_new_inode, find_inode_bit, recently_deleted).
// Set here, in the main process, so the global setup, the test processes and their children all inherit it. Only
// a roomy one: a container's /dev/shm is often 64 MiB, and a run's data directories take hundreds of MiB at once.
const SHM = '/dev/shm'
const SHM_ROOM = 4 * 1024 ** 3
function roomyDir(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK)
    const fs = statfsSync(dir)
    return statSync(dir).isDirectory() && fs.bavail * fs.bsize >= SHM_ROOM
  } catch {
    return false
  }
}
if (!process.env.TMPDIR && roomyDir(SHM)) process.env.TMPDIR = SHM

type Group = 'kafka' | 'browser' | 'processes' | 'in-process' | 'unit' | 'alone'
const GROUPS: Group[] = ['kafka', 'browser', 'processes', 'in-process', 'unit', 'alone']
/** The groups whose files share their processes (see above). */
const SHARED = new Set<Group>(['unit', 'in-process', 'browser', 'processes'])

const root = import.meta.dirname

function groupOf(file: string): Group {
  const text = readFileSync(path.join(root, file), 'utf8')
  if (/support\/kafka'/.test(text)) return 'kafka'
  if (/support\/(browser|chromium)'|'playwright-core'/.test(text)) return 'browser'
  if (text.includes('/proc/self/task')) return 'alone'
  if (!file.startsWith('test/')) return 'unit'
  if (file.startsWith('test/deploy/') || /\bspawnWren\(|'node:child_process'|support\/(python|clickhouse-http)'/.test(text))
    return 'processes'
  return 'in-process'
}

function testFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts') && !name.split(path.sep).includes('node_modules'))
    .map((name) => path.join(dir, name).split(path.sep).join('/'))
}

const byGroup = new Map<Group, string[]>(GROUPS.map((g) => [g, []]))
for (const file of ['services', 'test', 'web'].flatMap(testFiles)) byGroup.get(groupOf(file))!.push(file)

/**
 * The kafka, browser and processes files first, taken in turn from each group (so three brokers or three browsers do
 * not start at once on two cores), then in-process, then unit. Within a group, the longest last time (or, on a
 * first run, the largest) first.
 */
class WaitingFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const of = (group: Group) => sorted.filter((spec) => spec.project.name === group)
    const waiting = [of('kafka'), of('browser'), of('processes')]
    const turns = Array.from({ length: Math.max(...waiting.map((g) => g.length)) }, (_, i) => waiting.flatMap((g) => g[i] ?? []))
    return [...turns.flat(), ...of('in-process'), ...of('unit'), ...of('alone')]
  }
}

export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll waits on a condition: its default of a second is a fixed time, too short on two busy cores.
    expect: { poll: { timeout: 10_000 } },
    // Every Wren a test starts, in its process or as a child, checks its answers against their schemas.
    // Its background threads keep the process's priority: a test's own client floods the Wren it started on
    // the same two cores, where ingestion behind capture (WREN_BACKGROUND_NICE's default) only waits longer
    // (the crash tests took 1.6x as long); services/platform/thread-priority.test.ts tests the priority itself.
    env: { WREN_CHECK_RESPONSES: '1', WREN_BACKGROUND_NICE: '0' },
    sequence: { sequencer: WaitingFirst },
    // What every Wren a test starts can share, made once per run (a migrated chDB, the build): test/support/run-setup.ts.
    globalSetup: ['test/support/run-setup.ts'],
    projects: GROUPS.map((name) => ({ extends: true, test: { name, include: byGroup.get(name)!, isolate: !SHARED.has(name) } })),
  },
})
