// The storage of one topic of the embedded log: segment files, record framing, group commit, recovery.
//
// A topic is a directory of segment files named by the offset of their first record (20 digits, so a
// lexical sort is an offset sort). A segment is a sequence of frames:
//   [u32 BE payload length][u32 BE crc32(payload)][payload = u16 BE key length, key utf8, value bytes]
// Offsets are record indexes, so a segment's record count is the next segment's base minus its own.

import { crc32 } from 'node:zlib'
import { open, readdir, stat, unlink, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import type { LogMessage, LogRecord } from '../log'

export interface Warner {
  warn(obj: object, msg: string): void
}

const HEADER_BYTES = 8
const MAX_KEY_BYTES = 0xffff
/** A sparse index entry every this many records: finding an offset reads at most this many frames. */
const INDEX_EVERY = 64
/** Bound one group-commit write so that a burst cannot make a single huge write (and buffer). */
const MAX_FLUSH_BYTES = 8 << 20
const SCAN_CHUNK_BYTES = 1 << 20

export const segmentFileName = (base: number) => `${String(base).padStart(20, '0')}.seg`

/** One caller's messages, framed into one buffer so that the flush is a single writev of ready bytes. */
export interface EncodedAppend {
  buf: Buffer
  /** Frame size of each record, in order, to maintain the sparse index after the write. */
  frameSizes: number[]
}

/** Validates everything before framing anything, so an invalid message rejects the whole call. */
export function encodeMessages(messages: LogMessage[]): EncodedAppend {
  if (!Array.isArray(messages)) throw new TypeError('messages must be an array')
  let total = 0
  const keys = messages.map((m, i) => {
    if (typeof m?.key !== 'string') throw new TypeError(`message ${i}: key must be a string`)
    if (!(m.value instanceof Uint8Array)) throw new TypeError(`message ${i}: value must be a Buffer`)
    const key = Buffer.from(m.key, 'utf8')
    if (key.length > MAX_KEY_BYTES) throw new RangeError(`message ${i}: key longer than ${MAX_KEY_BYTES} bytes`)
    total += HEADER_BYTES + 2 + key.length + m.value.length
    return key
  })
  const buf = Buffer.allocUnsafe(total)
  const frameSizes: number[] = []
  let p = 0
  messages.forEach((m, i) => {
    const key = keys[i]
    const payloadLength = 2 + key.length + m.value.length
    const start = p + HEADER_BYTES
    buf.writeUInt16BE(key.length, start)
    key.copy(buf, start + 2)
    buf.set(m.value, start + 2 + key.length)
    buf.writeUInt32BE(payloadLength, p)
    buf.writeUInt32BE(crc32(buf.subarray(start, start + payloadLength)), p + 4)
    frameSizes.push(HEADER_BYTES + payloadLength)
    p += HEADER_BYTES + payloadLength
  })
  return { buf, frameSizes }
}

interface FrameScan {
  /** Position after the last valid frame consumed. */
  position: number
  /** Why scanning stopped before `end`, if it did. */
  problem?: string
}

/**
 * Calls onFrame for each valid frame in [start, end) until it returns false. Stops at the first invalid
 * or incomplete frame and says why; the caller decides whether that is a torn tail or corruption.
 */
async function readFrames(
  fh: FileHandle,
  start: number,
  end: number,
  chunkBytes: number,
  onFrame: (payload: Buffer, position: number) => boolean,
): Promise<FrameScan> {
  let pos = start
  while (pos < end) {
    const want = Math.min(chunkBytes, end - pos)
    const chunk = Buffer.allocUnsafe(want)
    const { bytesRead } = await fh.read(chunk, 0, want, pos)
    let p = 0
    for (;;) {
      if (pos + p + HEADER_BYTES > end) return { position: pos + p, problem: 'short header' }
      if (p + HEADER_BYTES > bytesRead) break
      const length = chunk.readUInt32BE(p)
      if (length < 2) return { position: pos + p, problem: `bad length ${length}` }
      if (pos + p + HEADER_BYTES + length > end) return { position: pos + p, problem: 'length beyond end' }
      if (p + HEADER_BYTES + length > bytesRead) {
        // The frame is larger than what is left of this chunk: read again from it, big enough.
        if (p === 0) chunkBytes = HEADER_BYTES + length
        break
      }
      const payload = chunk.subarray(p + HEADER_BYTES, p + HEADER_BYTES + length)
      if (crc32(payload) !== chunk.readUInt32BE(p + 4)) return { position: pos + p, problem: 'bad crc' }
      if (payload.readUInt16BE(0) > length - 2) return { position: pos + p, problem: 'bad key length' }
      const more = onFrame(payload, pos + p)
      p += HEADER_BYTES + length
      if (!more) return { position: pos + p }
      if (pos + p === end) return { position: end }
    }
    if (p === 0 && bytesRead < want) return { position: pos, problem: 'short read' }
    pos += p
  }
  return { position: pos }
}

/** Makes a just created or renamed directory entry durable. */
export async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r')
  try {
    await fh.sync()
  } finally {
    await fh.close()
  }
}

class Segment {
  constructor(
    readonly base: number,
    readonly path: string,
    /** Opened lazily for older segments: most are never read again once consumed. */
    public fh: FileHandle | null,
    /** Durable bytes: readers never look past it, so they only see fsync'd records. */
    public size: number,
    public count: number,
    /** index[k] = position of record base + k*INDEX_EVERY; null until first read of an older segment. */
    public index: number[] | null,
    /** When a record was last written to it (epoch ms): retention by age. */
    public writtenAt: number,
  ) {}
}

interface PendingAppend extends EncodedAppend {
  resolve(): void
  reject(err: unknown): void
}

export class TopicStore {
  private readonly segments: Segment[] = []
  private queue: PendingAppend[] = []
  private flushing: Promise<void> | null = null
  /** Set when a failed write could not be undone: appending more could bury garbage mid-segment. */
  private broken: Error | null = null
  private readonly listeners = new Set<() => void>()
  /** Data fsyncs done, for tests and benchmarks that check group commit. */
  syncs = 0

  private constructor(
    readonly name: string,
    readonly dir: string,
    private readonly segmentBytes: number,
    private readonly logger: Warner,
  ) {}

  static async open(dir: string, name: string, segmentBytes: number, logger: Warner): Promise<TopicStore> {
    const store = new TopicStore(name, dir, segmentBytes, logger)
    await store.load()
    return store
  }

  /** Offset of the first record still on disk (retention deletes whole segments from the front). */
  get startOffset(): number {
    return this.segments[0].base
  }

  get endOffset(): number {
    const last = this.active
    return last.base + last.count
  }

  /** Bytes of every segment on disk. */
  get bytes(): number {
    return this.segments.reduce((sum, seg) => sum + seg.size, 0)
  }

  private get active(): Segment {
    return this.segments[this.segments.length - 1]
  }

  /** Called after every durable append; subscriptions use it to wake up instead of polling. */
  onAppend(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private async load(): Promise<void> {
    const names = (await readdir(this.dir)).filter((n) => /^\d{20}\.seg$/.test(n)).sort()
    if (names.length === 0) {
      const path = join(this.dir, segmentFileName(0))
      const fh = await open(path, 'wx+')
      await syncDir(this.dir)
      this.segments.push(new Segment(0, path, fh, 0, 0, [], Date.now()))
      return
    }
    const bases = names.map((n) => Number(n.slice(0, 20)))
    for (let i = 0; i < names.length - 1; i++) {
      // Earlier segments were complete when the next one was created: trusted, indexed on first read.
      const path = join(this.dir, names[i])
      const count = bases[i + 1] - bases[i]
      if (count < 0) throw new Error(`log segments of ${this.name} out of order at ${names[i]}`)
      const { size, mtimeMs } = await stat(path)
      this.segments.push(new Segment(bases[i], path, null, size, count, null, mtimeMs))
    }
    const path = join(this.dir, names[names.length - 1])
    const fh = await open(path, 'r+')
    const { size, mtimeMs } = await fh.stat()
    const last = new Segment(bases[bases.length - 1], path, fh, size, 0, null, mtimeMs)
    this.segments.push(last)
    const scan = await this.scanSegment(last)
    last.index = scan.index
    last.count = scan.count
    if (scan.position < last.size) {
      // A crash mid-write leaves a torn tail; those records were never acknowledged, so drop them.
      const dropped = last.size - scan.position
      await fh.truncate(scan.position)
      await fh.sync()
      last.size = scan.position
      this.logger.warn(
        { topic: this.name, segment: last.path, droppedBytes: dropped, reason: scan.problem },
        'embedded log: truncated torn tail of segment',
      )
    }
  }

  /** Reads a whole segment, checking every frame, to count its records and build its sparse index. */
  private async scanSegment(seg: Segment): Promise<FrameScan & { index: number[]; count: number }> {
    const fh = await this.handle(seg)
    const index: number[] = []
    let count = 0
    const scan = await readFrames(fh, 0, seg.size, SCAN_CHUNK_BYTES, (_payload, position) => {
      if (count % INDEX_EVERY === 0) index.push(position)
      count++
      return true
    })
    return { ...scan, index, count }
  }

  private async handle(seg: Segment): Promise<FileHandle> {
    seg.fh ??= await open(seg.path, 'r')
    return seg.fh
  }

  /** Resolves once the messages are fsync'd; concurrent calls share one write and one fsync. */
  append(encoded: EncodedAppend): Promise<void> {
    return new Promise((resolve, reject) => {
      if (encoded.frameSizes.length === 0) return resolve()
      this.queue.push({ ...encoded, resolve, reject })
      this.kick()
    })
  }

  private kick(): void {
    if (this.flushing) return
    this.flushing = this.flushLoop().finally(() => {
      this.flushing = null
      if (this.queue.length > 0) this.kick()
    })
  }

  /** Waits until every append queued so far has been written (or failed). */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing
  }

  private async flushLoop(): Promise<void> {
    // Let appends issued in the same turn of the event loop join the first write.
    await new Promise<void>((r) => setImmediate(r))
    while (this.queue.length > 0) {
      const group = this.queue
      this.queue = []
      try {
        await this.flushGroup(group)
      } catch (err) {
        for (const item of group) item.reject(err)
      }
    }
  }

  private async flushGroup(group: PendingAppend[]): Promise<void> {
    if (this.broken) throw this.broken
    let seg = this.active
    if (seg.size > 0 && seg.size + group[0].buf.length > this.segmentBytes) seg = await this.roll()
    // Take what fits in this segment and in one write; the rest goes back to the head of the queue.
    let bytes = group[0].buf.length
    let n = 1
    while (n < group.length) {
      const next = bytes + group[n].buf.length
      if (next > MAX_FLUSH_BYTES || seg.size + next > this.segmentBytes) break
      bytes = next
      n++
    }
    if (n < group.length) this.queue.unshift(...group.splice(n))
    try {
      const { bytesWritten } = await seg.fh!.writev(
        group.map((g) => g.buf),
        seg.size,
      )
      if (bytesWritten !== bytes) throw new Error(`short write to ${seg.path}: ${bytesWritten} of ${bytes}`)
      this.syncs++
      await seg.fh!.datasync()
    } catch (err) {
      await this.undoWrite(seg, err)
      throw err
    }
    let offset = seg.base + seg.count
    let position = seg.size
    for (const item of group) {
      for (const frameSize of item.frameSizes) {
        if ((offset - seg.base) % INDEX_EVERY === 0) seg.index!.push(position)
        offset++
        position += frameSize
      }
    }
    seg.size = position
    seg.count = offset - seg.base
    seg.writtenAt = Date.now()
    for (const item of group) item.resolve()
    for (const listener of this.listeners) listener()
  }

  /** Cuts off a partly written group so its records can never appear after a later successful append. */
  private async undoWrite(seg: Segment, cause: unknown): Promise<void> {
    try {
      await seg.fh!.truncate(seg.size)
      await seg.fh!.datasync()
    } catch (err) {
      this.broken = new Error(`embedded log topic ${this.name} is unusable until reopened: ${String(err)}`)
      this.logger.warn({ topic: this.name, err, cause }, 'embedded log: could not undo a failed append')
    }
  }

  private async roll(): Promise<Segment> {
    const base = this.endOffset
    const path = join(this.dir, segmentFileName(base))
    const fh = await open(path, 'wx+')
    try {
      await syncDir(this.dir)
    } catch (err) {
      // Leave no file behind, or the next roll to this base would fail on it forever.
      await fh.close().catch(() => {})
      await unlink(path).catch(() => {})
      throw err
    }
    const seg = new Segment(base, path, fh, 0, 0, [], Date.now())
    this.segments.push(seg)
    return seg
  }

  /**
   * Reads up to `count` consecutive durable records starting at `from`, stopping before the record that
   * would take their keys and values past `maxBytes` (the first record is read whatever its size).
   */
  async read(from: number, count: number, maxBytes = Infinity): Promise<LogRecord[]> {
    if (from < this.startOffset) throw new Error(`offset ${from} of ${this.name} was deleted by retention`)
    const out: LogRecord[] = []
    let offset = from
    let bytes = 0
    let full = false
    const until = Math.min(from + count, this.endOffset)
    while (offset < until && !full) {
      const seg = this.segmentOf(offset)
      if (!seg.index) {
        // An older segment, first read since open: its count is known from the next segment's base.
        const scan = await this.scanSegment(seg)
        if (scan.problem || scan.count !== seg.count) {
          throw new Error(`embedded log segment ${seg.path} is corrupt (${scan.problem ?? 'record count'})`)
        }
        seg.index = scan.index
      }
      const k = Math.floor((offset - seg.base) / INDEX_EVERY)
      let current = seg.base + k * INDEX_EVERY
      const stop = Math.min(until, seg.base + seg.count)
      // Read roughly what the wanted records take, from the average record size of this segment.
      const average = seg.count > 0 ? seg.size / seg.count : 256
      const chunk = Math.min(4 << 20, Math.max(16 << 10, Math.ceil((stop - current) * average * 1.1)))
      const scan = await readFrames(await this.handle(seg), seg.index![k], seg.size, chunk, (payload) => {
        if (current >= offset) {
          const keyLength = payload.readUInt16BE(0)
          // The frame's payload is the key's length (2 bytes), the key and the value.
          bytes += payload.length - 2
          if (out.length > 0 && bytes > maxBytes) {
            full = true
            return false
          }
          out.push({
            key: payload.toString('utf8', 2, 2 + keyLength),
            value: payload.subarray(2 + keyLength),
            partition: 0,
            offset: current,
          })
        }
        current++
        return current < stop
      })
      if (scan.problem || (current < stop && !full)) {
        throw new Error(`embedded log segment ${seg.path} is corrupt at ${scan.position} (${scan.problem ?? 'short'})`)
      }
      offset = stop
    }
    return out
  }

  private segmentOf(offset: number): Segment {
    let lo = 0
    let hi = this.segments.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (this.segments[mid].base <= offset) lo = mid
      else hi = mid - 1
    }
    return this.segments[lo]
  }

  /**
   * Deletes whole segments whose records are all below `offset`, never the active one, oldest first, except
   * those `keep` spares: consumed segments are kept while they total at most keep.bytes and were last
   * written less than keep.ms ago (either limit deletes, as Kafka's retention.bytes and retention.ms).
   */
  async deleteBelow(offset: number, keep: { bytes: number; ms: number } = { bytes: 0, ms: 0 }): Promise<void> {
    let consumed = 0
    let consumedBytes = 0
    while (consumed < this.segments.length - 1 && this.segments[consumed].base + this.segments[consumed].count <= offset) {
      consumedBytes += this.segments[consumed++].size
    }
    const now = Date.now()
    const doomed: Segment[] = []
    while (doomed.length < consumed && (consumedBytes > keep.bytes || now - this.segments[0].writtenAt >= keep.ms)) {
      const seg = this.segments.shift()!
      consumedBytes -= seg.size
      doomed.push(seg)
    }
    for (const seg of doomed) {
      await seg.fh?.close()
      seg.fh = null
      await unlink(seg.path)
    }
    if (doomed.length > 0) await syncDir(this.dir)
  }

  /** Closes files; the caller drains pending appends first. */
  async close(): Promise<void> {
    for (const seg of this.segments) {
      const fh = seg.fh
      seg.fh = null
      await fh?.close()
    }
  }
}
