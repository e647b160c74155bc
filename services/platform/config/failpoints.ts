// Failpoints: failures that tests cause on purpose, in a real Wren process (a crash between a write and
// its commit, a batch ClickHouse refuses, …). All are read from one variable,
// WREN_FAILPOINTS=name=value,name=value, and declared here only: what each does and which tests use it.
// They reach the code that fails through `Config.failpoints`, like any other setting. They are for tests:
// the configuration reference says they exist and lists none.
import { integer, text, type Parser } from './parse'

interface Failpoint<T> {
  parse: Parser<T>
  does: string
  /** The tests that set it (config.test.ts checks each one names it). */
  tests: readonly string[]
}

export const FAILPOINTS = {
  ingestCrashAfterBatches: {
    parse: integer,
    does: 'SIGKILL the process after this many ingestion batches are written but not committed',
    tests: ['test/ingestion/crash-recovery.test.ts', 'test/ingestion/crash-compaction.test.ts', 'test/runtime/cluster.test.ts'],
  },
  ingestPoisonEvent: {
    parse: text,
    does: 'writing an ingestion batch that holds an event of this name fails (as a refusing ClickHouse would)',
    tests: [
      'test/dead-letters/dead-letters.test.ts',
      'test/runtime/cluster.test.ts',
      'test/runtime/cli-running.test.ts',
      'test/http/list-paging.test.ts',
    ],
  },
  ingestWorkerExitEvent: {
    parse: text,
    does: 'the ingestion worker thread exits on a batch that holds an event of this name (a message that kills it)',
    tests: ['test/ingestion/ingestion-worker-crash.test.ts'],
  },
  ingestStallFile: {
    parse: text,
    does: 'while this file exists every ingestion batch fails before the processor sees it (a real stall)',
    tests: [
      'test/capture/backpressure.test.ts',
      'test/runtime/metrics.test.ts',
      'test/ingestion/ingestion-health.test.ts',
      'test/runtime/cluster.test.ts',
      'test/ingestion/shutdown-backlog.test.ts',
    ],
  },
  recordingsCrashAfterBatches: {
    parse: integer,
    does: 'SIGKILL the process after this many snapshot batches are written but not committed',
    tests: ['test/recordings/recordings-crash.test.ts', 'test/runtime/cluster-shared-storage.test.ts'],
  },
  recordingsStallFile: {
    parse: text,
    does: 'while this file exists every recordings batch fails before the processor sees it (a real stall)',
    tests: ['test/recordings/recordings-backpressure.test.ts'],
  },
  recordingsPoisonSession: {
    parse: text,
    does: 'writing a snapshot batch that holds this session id fails',
    tests: ['test/dead-letters/recordings-dead-letters.test.ts'],
  },
  oomAfterMs: {
    parse: integer,
    does: 'the main thread runs out of heap this many ms after the server listens (for the watchdog)',
    tests: ['test/capture/decompression-bomb.test.ts'],
  },
} satisfies Record<string, Failpoint<unknown>>

type Field = keyof typeof FAILPOINTS

/** Each failpoint's value, null when it is off. */
export type Failpoints = { [F in Field]: ReturnType<(typeof FAILPOINTS)[F]['parse']['parse']> | null }

/** The name a test writes in WREN_FAILPOINTS: the field in kebab case (ingestStallFile: ingest-stall-file). */
export function failpointName(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
}

/** Adds what is wrong to `problems`; the failpoints that parse are on. */
export function readFailpoints(setting: string | undefined, problems: string[]): Failpoints {
  const fields = Object.keys(FAILPOINTS) as Field[]
  const on = Object.fromEntries(fields.map((f) => [f, null])) as Record<Field, unknown>
  const byName = new Map(fields.map((f) => [failpointName(f), f]))
  for (const item of (setting ?? '').split(',').map((i) => i.trim())) {
    if (!item) continue
    const at = item.indexOf('=')
    const name = at < 0 ? item : item.slice(0, at)
    const field = byName.get(name)
    if (!field) {
      problems.push(`WREN_FAILPOINTS: unknown failpoint ${name}; failpoints are ${[...byName.keys()].join(', ')}`)
      continue
    }
    const { parse } = FAILPOINTS[field]
    try {
      if (at < 0 || at === item.length - 1) throw new Error()
      on[field] = parse.parse(item.slice(at + 1))
    } catch {
      problems.push(`WREN_FAILPOINTS: ${name} takes a value (${name}=…), ${parse.accepts}`)
    }
  }
  return on as Failpoints
}
