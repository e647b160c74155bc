// The ingestion processor's CPU work on one range of the log: decode the messages, add GeoIP, apply them
// to the persons in memory (persons/repo.ts, persons/rules.ts) and encode what to store (the store's
// prepare). It reads storage only through the `load` it is given and writes nothing: the processor
// (processor.ts) does the I/O. In Wren it runs on a worker thread (compute-worker.ts), so that capture's
// and the API's requests never wait behind a batch; unit tests run it in their own thread.
import { decodeIngest, type IngestItem } from '../platform/log/contract'
import { errorText } from '../platform/errors'
import { PersonRepo } from './persons/repo'
import { applyCommand, lookupsFor, processEvent, warnIfDroppedPersonless, type CommandResult } from './persons/rules'
import type { BatchRange, LoadedState, Lookups, PersonStore, PingResult, ReplayBound } from './persons/store'
import type { IngestionWarning, PersonChanges, ProcessedEvent } from './types'
import { withGeoIp } from './geoip'
import { DefinitionSightings } from './definitions'
import type { CityLookup } from '../platform/geoip'

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
 * messages each, on offset multiples, cut again where their event rows would pass `partBytes`), so that
 * storage writes one part while the next one is worked, and what a batch holds in memory stays bounded
 * however wide its rows are (a person's properties are copied onto each of its events). Each part is
 * written like a range of its own: its rows carry its own last offset and its tokens its own range, so a
 * replay of the range, rebuilt from the same stored state, cuts the same parts and deduplicates every one.
 * Plain data (it may cross threads).
 */
export interface PartOutput<Prepared> {
  range: BatchRange
  /** The part's person changes and events, as the store writes them (PersonStore.prepare). */
  prepared: Prepared
  changes: PersonChanges
  /** The failpoint's event is among the part's events (ProcessorOptions.poisonEvent). */
  poisoned: boolean
  /** Bytes the part hands to storage (PersonWorkOptions.measure), or about what its event rows take. */
  bytes: number
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
  /**
   * Works a range, handing each part to `part` as soon as it is ready, in order. `part` resolves once the
   * part is stored: the next part is handed over only then (one part is worked while one is stored, never
   * more), and a rejection ends the work with its error. Resolves once the last part is handed over (the
   * caller waits for its write): ranges are worked one after the other, in the order of the calls, so the
   * next range's first part is worked while the last one's last part is stored.
   */
  compute(input: RangeInput, load: Loader, part: (part: PartOutput<Prepared>) => Promise<void>): Promise<RangeOutput>
  /** The oldest range worked and not yet stored is stored: memory may let go of the persons used least recently. */
  stored(): void
  /** Storage did not take what was worked (or it was worked ahead for nothing): memory is ahead of it and is forgotten, once the ranges being worked are done. */
  clear(): void
  /** Whether the work can run at all (a worker that cannot start is no message's fault). */
  ping(): Promise<PingResult>
  close(): Promise<void>
}

export interface PersonWorkOptions<Prepared> {
  prepare: PersonStore<Prepared>['prepare']
  encodeEvent: PersonStore<Prepared>['encodeEvent']
  geoip: CityLookup | null
  /** Persons (and their distinct ids and groups) kept in memory between ranges; the least recently used go first. */
  maxCachedPersons?: number
  /** Failpoint for tests: a part holding an event of this name is reported as poisoned. */
  poisonEvent?: string | null
  /** Messages per part (PART_RECORDS). */
  partRecords?: number
  /** About how many bytes of event rows a part holds at most (always at least one message): the rows' length (encodeEvent). */
  partBytes?: number
  /** The bytes a part hands to storage, for PartOutput.bytes. */
  measure?: (prepared: Prepared) => number
}

export class PersonWork<Prepared> implements RangeWork<Prepared> {
  private readonly repo: PersonRepo
  /** Ranges and clears, one after the other in the order they were asked for. */
  private queue: Promise<unknown> = Promise.resolve()
  /** The moment (PersonRepo.now) each range worked and not yet stored was done at, oldest first. */
  private readonly unstored: number[] = []
  /** The moment the newest stored range was done at: what was used up to it is stored, and may be evicted. */
  private storedAt = 0

  constructor(private readonly options: PersonWorkOptions<Prepared>) {
    this.repo = new PersonRepo({ maxPersons: options.maxCachedPersons })
  }

  compute(input: RangeInput, load: Loader, part: (part: PartOutput<Prepared>) => Promise<void>): Promise<RangeOutput> {
    return this.next(() => this.work(input, load, part))
  }

  stored(): void {
    this.storedAt = this.unstored.shift() ?? this.storedAt
  }

  clear(): void {
    void this.next(async () => {
      this.repo.clear()
      this.unstored.length = 0
    })
  }

  async ping(): Promise<PingResult> {
    return { success: true }
  }

  async close(): Promise<void> {}

  private next<T>(step: () => Promise<T>): Promise<T> {
    const run = this.queue.then(step)
    this.queue = run.catch(() => undefined)
    return run
  }

  private async work(input: RangeInput, load: Loader, part: (part: PartOutput<Prepared>) => Promise<void>): Promise<RangeOutput> {
    // Only what stored ranges alone used goes: the rows of a range still being stored are newer than storage.
    this.repo.evict(this.storedAt)
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
    const maxBytes = this.options.partBytes ?? Infinity
    let eventCount = 0
    let next = 0
    let storing: Promise<void> = Promise.resolve()
    // The range's definitions, gathered part by part and written with its last part.
    const definitions = new DefinitionSightings()
    const slots = partsOf(input, size)
    for (const slot of slots) {
      for (let first = slot.firstOffset; first <= slot.lastOffset;) {
        const events: ProcessedEvent[] = []
        const rows: string[] = []
        let bytes = 0
        let last = slot.lastOffset
        for (; next < items.length && input.firstOffset + items[next].index <= slot.lastOffset; next++) {
          const { index, item } = items[next]
          try {
            // An item that throws leaves no half-applied person change behind.
            this.repo.atomically(() => {
              if (item.kind === 'command') results.push([item.command.commandId, applyCommand(this.repo, item.command)])
              else if (!warnIfDroppedPersonless(this.repo, item.event)) {
                const event = processEvent(this.repo, item.event)
                const row = this.options.encodeEvent(event)
                // Past the bound: undone, and the first event of the next part.
                if (events.length > 0 && bytes + row.length > maxBytes) throw PART_FULL
                events.push(event)
                rows.push(row)
                bytes += row.length
              }
            })
          } catch (err) {
            if (err === PART_FULL) {
              last = input.firstOffset + index - 1
              break
            }
            const teamId = item.kind === 'event' ? item.event.teamId : item.command.teamId
            failed.push({ index, error: errorText(err), teamId })
            // Whoever waits for a command that cannot be applied hears so now, not after its timeout.
            if (item.kind === 'command') results.push([item.command.commandId, { ok: false, status: 500, detail: errorText(err) }])
          }
        }
        const range = { topic: input.topic, partition: input.partition, firstOffset: first, lastOffset: last }
        const changes = this.repo.takeChanges()
        eventCount += events.length
        definitions.add(events, changes.groups)
        const isLast = slot === slots[slots.length - 1] && last === slot.lastOffset
        const prepared = this.options.prepare(range, changes, events, rows, isLast ? definitions.rows() : null)
        const output: PartOutput<Prepared> = {
          range,
          prepared,
          changes,
          poisoned: Boolean(poison && events.some((e) => e.event === poison)),
          bytes: this.options.measure ? this.options.measure(prepared) : bytes,
        }
        // The previous part is stored before this one is handed over: a batch holds two parts at most.
        await storing
        storing = part(output)
        // Awaited before the next part (or at the end): never left unhandled meanwhile.
        storing.catch(() => undefined)
        first = last + 1
      }
    }
    // The last part is stored while the next range is worked (the caller waits for it).
    this.unstored.push(this.repo.now())
    failed.sort((a, b) => a.index - b.index)
    return { results, failed, events: eventCount, warnings: this.repo.takeWarnings() }
  }
}

/** Thrown inside an event's atomic step to undo it: it would take its part past partBytes. */
const PART_FULL = new Error('the part is full')

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
