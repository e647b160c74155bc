// The byte bounds of the processors' batches, when unset, sized from the memory this process may use:
// the machine's, or its cgroup's limit when lower (a container). The table's rows (./table.ts) say the same
// in words for the docs.
import { totalmem } from 'node:os'
import type { Config } from './types'

const MiB = 1 << 20

/** Each unset bound: a share of memory, within a floor and a ceiling. */
export const MEMORY_SIZED = {
  ingestBatchBytes: { share: 128, min: 4 * MiB, max: 64 * MiB },
  ingestPartBytes: { share: 64, min: 8 * MiB, max: 256 * MiB },
  recordingsBatchBytes: { share: 32, min: 32 * MiB, max: 256 * MiB },
} as const

export function memorySizedText(bound: keyof typeof MEMORY_SIZED): string {
  const { share, min, max } = MEMORY_SIZED[bound]
  return `1/${share} of memory (the machine's, or its cgroup limit), between ${min / MiB} and ${max / MiB} MiB`
}

export interface BatchBytes {
  ingestBatchBytes: number
  ingestPartBytes: number
  recordingsBatchBytes: number
}

/** The processors' byte bounds: as set, or sized from `memory`. */
export function batchBytes(config: Pick<Config, 'ingestion' | 'recordings'>, memory = availableMemory()): BatchBytes {
  const sized = (bound: keyof typeof MEMORY_SIZED) => {
    const { share, min, max } = MEMORY_SIZED[bound]
    return Math.min(max, Math.max(min, Math.floor(memory / share)))
  }
  return {
    ingestBatchBytes: config.ingestion.maxBatchBytes ?? sized('ingestBatchBytes'),
    ingestPartBytes: config.ingestion.partBytes ?? sized('ingestPartBytes'),
    recordingsBatchBytes: config.recordings.maxBatchBytes ?? sized('recordingsBatchBytes'),
  }
}

function availableMemory(): number {
  // Node reports no limit as a huge number (or 0 where it cannot tell).
  const limit = process.constrainedMemory?.() || Infinity
  return Math.min(totalmem(), limit)
}
