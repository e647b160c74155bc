// Benchmark of the embedded log (not a test: prints figures, asserts nothing).
//   node --import tsx bench/embedded-log.ts [secondsPerRun=3] [concurrencies=1,4,16,64]
// Appends: N concurrent appenders, each appending batches of 100 messages of ~300 bytes and awaiting
// the durable acknowledgement before the next. Reads: one consumer group reading everything back.
// Reference: raw write+fdatasync round trips per second on the same disk, the ceiling group commit
// multiplies.

import { mkdtemp, open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openEmbeddedLog } from '../services/platform/log/embedded/embedded-log'
import type { LogMessage } from '../services/platform/log/log'

const seconds = Number(process.argv[2] ?? 3)
const concurrencies = (process.argv[3] ?? '1,4,16,64').split(',').map(Number)
const BATCH = 100

const fmt = (n: number) => Math.round(n).toLocaleString('en-US')

function message(i: number): LogMessage {
  const value = Buffer.alloc(300, 0x61)
  value.write(JSON.stringify({ uuid: crypto.randomUUID(), event: '$pageview', i }))
  return { key: `project-${i % 7}`, value }
}

async function rawFsyncRate(dir: string): Promise<number> {
  const fh = await open(join(dir, 'raw'), 'w')
  const block = Buffer.alloc(4096, 1)
  let n = 0
  const until = performance.now() + 1000
  while (performance.now() < until) {
    await fh.write(block, 0, block.length, n * block.length)
    await fh.datasync()
    n++
  }
  await fh.close()
  return n
}

async function appendRun(dir: string, concurrency: number) {
  const log = await openEmbeddedLog({ dir })
  const batch = Array.from({ length: BATCH }, (_, i) => message(i))
  await log.append('bench', batch) // creates the topic outside the timed part
  const syncsBefore = log.dataSyncs()
  let appends = 0
  const latencies: number[] = []
  const start = performance.now()
  const until = start + seconds * 1000
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const t = performance.now()
        await log.append('bench', batch)
        latencies.push(performance.now() - t)
        appends++
      }
    }),
  )
  const elapsed = (performance.now() - start) / 1000
  const syncs = log.dataSyncs() - syncsBefore
  latencies.sort((a, b) => a - b)
  const p99 = latencies[Math.floor(latencies.length * 0.99)]
  console.log(
    `append  N=${String(concurrency).padStart(3)}: ${fmt((appends * BATCH) / elapsed).padStart(9)} events/s` +
      ` (${fmt(appends / elapsed)} appends/s, ${fmt(syncs / elapsed)} fsyncs/s,` +
      ` ${(appends / Math.max(1, syncs)).toFixed(1)} appends per fsync, p99 ${p99.toFixed(1)} ms)`,
  )
  const { endOffset } = await log.stats('bench')
  await log.close()
  return endOffset
}

async function readRun(dir: string, total: number, maxBatchRecords: number) {
  const log = await openEmbeddedLog({ dir })
  let seen = 0
  let done!: () => void
  const finished = new Promise<void>((r) => (done = r))
  const start = performance.now()
  const sub = log.subscribe({
    topic: 'bench',
    // Its own group each run, and a group "keeper" (below) at 0, so retention keeps everything.
    group: `reader-${maxBatchRecords}`,
    maxBatchRecords,
    maxWaitMs: 0,
    handler: async (batch) => {
      seen += batch.records.length
      if (seen >= total) done()
    },
  })
  await finished
  const elapsed = (performance.now() - start) / 1000
  await sub.stop()
  await log.close()
  console.log(
    `read    batch=${String(maxBatchRecords).padStart(5)}: ${fmt(seen / elapsed).padStart(9)} records/s` +
      ` (${fmt(total)} records, each batch committed durably)`,
  )
}

const dir = await mkdtemp(join(tmpdir(), 'wren-bench-log-'))
try {
  console.log(`embedded log benchmark in ${dir}: ${seconds} s per run, batches of ${BATCH} x ~300 B`)
  console.log(`reference: ${fmt(await rawFsyncRate(dir))} write+fdatasync round trips/s on this disk`)
  let total = 0
  for (const [i, concurrency] of concurrencies.entries()) {
    const runDir = join(dir, `run${i}`)
    const keeper = await openEmbeddedLog({ dir: runDir })
    await keeper.subscribe({ topic: 'bench', group: 'keeper', maxBatchRecords: 1, maxWaitMs: 0, handler: async () => {} }).stop()
    await keeper.close()
    total = await appendRun(runDir, concurrency)
    if (i === concurrencies.length - 1) {
      for (const maxBatchRecords of [1000, 10000]) await readRun(runDir, total, maxBatchRecords)
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true })
}
