// The ingestion processor's CPU work on one range of the log: decode the messages, add GeoIP, apply them
// to the persons in memory (persons/repo.ts, persons/rules.ts) and encode what to store (the store's
// prepare). It reads storage only through the `load` it is given and writes nothing: the processor
// (processor.ts) does the I/O. In Wren it runs on a worker thread (compute-worker.ts), so that capture's
// and the API's requests never wait behind a batch; unit tests run it in their own thread.
import { decodeIngest, type IngestItem } from '../shared/log/contract'
import { errorText } from '../shared/errors'
import { PersonRepo } from './persons/repo'
import { applyCommand, lookupsFor, processEvent, warnIfDroppedPersonless, type CommandResult } from './persons/rules'
import type { BatchRange, LoadedState, Lookups, PersonStore, PingResult, ReplayBound } from './persons/store'
import type { IngestionWarning, PersonChanges, ProcessedEvent } from './types'
import { withGeoIp } from './geoip'
import type { CityLookup } from '../shared/geoip'

/** One range of the ingest topic, as the person work needs it. */
export interface RangeInput extends BatchRange {
  /** The messages, offsets firstOffset.. in order. */
  values: Uint8Array[]
  /** The range was handed out before, or this process just got its partition: memory may be ahead of storage. */
  replayed: boolean
  /** Partitions of the ingest topic (person ids step by it, persons/ids.ts). */
  partitions: number
}

/**
 * One part of a range's output, in the store's form: a range is worked and stored in parts (PART_RECORDS
 * messages each, on offset multiples), so that storage writes one part while the next one is worked. Each
 * part is written like a range of its own: its rows carry its own last offset and its tokens its own
 * range, so a replay of the range rebuilds and deduplicates every part. Plain data (it may cross threads).
 */
export interface PartOutput<Prepared> {
  range: BatchRange
  /** The part's person changes and events, as the store writes them (PersonStore.prepare). */
  prepared: Prepared
  changes: PersonChanges
  /** The failpoint's event is among the part's events (ProcessorOptions.poisonEvent). */
  poisoned: boolean
}

/** What a range's work produced besides its parts. Plain data (it may cross threads). */
export interface RangeOutput {
  /** Applied person commands' results, by command id. */
  results: Array<[string, CommandResult]>
  /** Messages that could not be handled, by their index in the range. */
  failed: Array<{ index: number; error: string; teamId: number | null }>
  events: number
  warnings: IngestionWarning[]
}

/** Messages per part of a range (PartOutput), unless configured (WREN_INGEST_PART). */
export const PART_RECORDS = 2_500

export type Loader = (wanted: Lookups, bound: ReplayBound | null) => Promise<LoadedState>

/** The person work, wherever it runs: in this thread (PersonWork) or on a worker (WorkerPersonWork). */
export interface RangeWork<Prepared> {
  /** Works a range, handing each part to `part` as soon as it is ready, in order. */
  compute(input: RangeInput, load: Loader, part: (part: PartOutput<Prepared>) => void): Promise<RangeOutput>
  /** The last output is stored: memory may let go of the persons used least recently. */
  stored(): void
  /** Storage did not take the last output: memory is ahead of it and is forgotten. */
  clear(): void
  /** Whether the work can run at all (a worker that cannot start is no message's fault). */
  ping(): Promise<PingResult>
  close(): Promise<void>
}

export interface PersonWorkOptions<Prepared> {
  prepare: PersonStore<Prepared>['prepare']
  geoip: CityLookup | null
  /** Persons (and their distinct ids and groups) kept in memory between ranges; the least recently used go first. */
  maxCachedPersons?: number
  /** Failpoint for tests: a part holding an event of this name is reported as poisoned. */
  poisonEvent?: string | null
  /** Messages per part (PART_RECORDS). */
  partRecords?: number
}

export class PersonWork<Prepared> implements RangeWork<Prepared> {
  private readonly repo: PersonRepo

  constructor(private readonly options: PersonWorkOptions<Prepared>) {
    this.repo = new PersonRepo({ maxPersons: options.maxCachedPersons })
  }

  async compute(input: RangeInput, load: Loader, part: (part: PartOutput<Prepared>) => void): Promise<RangeOutput> {
    const items: Array<{ index: number; item: IngestItem }> = []
    const failed: RangeOutput['failed'] = []
    const geoip = this.options.geoip
    for (const [index, value] of input.values.entries()) {
      try {
        const item = decodeIngest(Buffer.from(value.buffer, value.byteOffset, value.byteLength))
        items.push({ index, item: item.kind === 'event' && geoip ? { ...item, event: withGeoIp(item.event, geoip) } : item })
      } catch (err) {
        failed.push({ index, error: errorText(err), teamId: null })
      }
    }

    // A replayed range may be partly stored already: forget what memory holds and rebuild the state from
    // before the range, so the replay writes the same rows and deduplication drops them. A partition this
    // process just got (a Kafka rebalance) may have been written by another process.
    if (input.replayed) this.repo.clear()
    const personIds = { partition: input.partition, partitions: input.partitions }
    this.repo.useIdSpace(personIds)
    const bound = input.replayed ? { partition: input.partition, firstOffset: input.firstOffset } : null
    const wanted = this.repo.unknown({
      ...lookupsFor(items.map(({ item }) => (item.kind === 'event' ? item.event : item.command))),
      personIds,
    })
    this.repo.load(wanted, await load(wanted, bound))

    const results: Array<[string, CommandResult]> = []
    const poison = this.options.poisonEvent
    const size = this.options.partRecords ?? PART_RECORDS
    let eventCount = 0
    let next = 0
    for (const range of partsOf(input, size)) {
      const events: ProcessedEvent[] = []
      for (; next < items.length && input.firstOffset + items[next].index <= range.lastOffset; next++) {
        const { index, item } = items[next]
        try {
          // An item that throws leaves no half-applied person change behind.
          this.repo.atomically(() => {
            if (item.kind === 'command') results.push([item.command.commandId, applyCommand(this.repo, item.command)])
            else if (!warnIfDroppedPersonless(this.repo, item.event)) events.push(processEvent(this.repo, item.event))
          })
        } catch (err) {
          const teamId = item.kind === 'event' ? item.event.teamId : item.command.teamId
          failed.push({ index, error: errorText(err), teamId })
          // Whoever waits for a command that cannot be applied hears so now, not after its timeout.
          if (item.kind === 'command') results.push([item.command.commandId, { ok: false, status: 500, detail: errorText(err) }])
        }
      }
      const changes = this.repo.takeChanges()
      eventCount += events.length
      part({
        range,
        prepared: this.options.prepare(range, changes, events),
        changes,
        poisoned: Boolean(poison && events.some((e) => e.event === poison)),
      })
    }
    failed.sort((a, b) => a.index - b.index)
    return { results, failed, events: eventCount, warnings: this.repo.takeWarnings() }
  }

  stored(): void {
    this.repo.evict()
  }

  clear(): void {
    this.repo.clear()
  }

  async ping(): Promise<PingResult> {
    return { success: true }
  }

  async close(): Promise<void> {}
}

/** A range's parts: cut before every offset that is a multiple of `size`. */
export function partsOf(range: BatchRange, size: number): BatchRange[] {
  const parts: BatchRange[] = []
  for (let first = range.firstOffset; first <= range.lastOffset;) {
    const last = Math.min(range.lastOffset, (Math.floor(first / size) + 1) * size - 1)
    parts.push({ topic: range.topic, partition: range.partition, firstOffset: first, lastOffset: last })
    first = last + 1
  }
  return parts
}
