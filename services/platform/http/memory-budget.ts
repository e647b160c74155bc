// One memory budget for the work of the SDKs' intake requests (capture, /s/, decide's flag answers): each
// is charged what its body will cost in memory before the body is read, from Content-Length (a chunked body
// as it streams, a compressed one again as it inflates), and past the budget answered 503 with Retry-After
// instead of read. Nothing else bounds how many 20 MB bodies are decoded, parsed and re-encoded at once:
// 12 concurrent 19 MB /s/ uploads ran the main thread out of heap.
import { getHeapStatistics } from 'node:v8'
import { Transform } from 'node:stream'
import type { ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { WrenError } from '../errors'

/**
 * Bytes of memory a request holds per byte of its (uncompressed) body: the body buffer, its text, the parsed
 * JSON, and the message re-encoded for the log. Measured on a 19 MB /s/ body of rrweb events: ~100 MB of heap
 * and ~110 MB of buffers at the peak, ~11×; 10 leaves the rarer extra copies (chunks joined) to the margin.
 */
export const EXPANSION = 10

/** Seconds a refused client is asked to wait: a large body's work takes a second or two. */
export const RETRY_AFTER_SECONDS = 2

/** The default budget: a quarter of V8's heap limit (the heap also holds decide's snapshot, batches…). */
export function defaultRequestMemoryBytes(): number {
  return Math.floor(getHeapStatistics().heap_size_limit / 4)
}

/** What one request holds of the budget, until released. */
export interface MemoryCharge {
  readonly bytes: number
  /** Raises the charge to `bytes` (no-op when it is already at least that); throws the 503 if it does not fit. */
  raise(bytes: number): void
  /** Gives the charge back; only the first call counts. */
  release(): void
}

export class MemoryBudget {
  private used = 0

  constructor(
    /** 0: never refuses (still counts). */
    readonly limit: number,
    /** Called on every refusal (the metric). */
    private readonly onRefused: () => void = () => {},
  ) {}

  /** Bytes charged now. */
  get inUse(): number {
    return this.used
  }

  /** A charge of `bytes`; throws the 503 when it does not fit. */
  charge(bytes: number): MemoryCharge {
    if (!this.fits(bytes, 0)) throw this.refusal()
    this.used += bytes
    return new Charge(this, bytes)
  }

  /** Raises `charge` by `more` bytes; throws the 503 when they do not fit. */
  raise(charge: MemoryCharge, more: number): void {
    if (!this.fits(more, charge.bytes)) throw this.refusal()
    this.used += more
  }

  /** Gives back `bytes` of a charge released. */
  giveBack(bytes: number): void {
    this.used -= bytes
  }

  /**
   * Whether `more` bytes fit, for a charge that holds `own` already. A request larger than the whole budget (but
   * under the body limit) fits while no other holds any: otherwise it could never be served.
   */
  private fits(more: number, own: number): boolean {
    return this.limit === 0 || more === 0 || this.used + more <= this.limit || this.used - own === 0
  }

  /** The 503 a request over the budget gets, with Retry-After, as capture's backpressure answers (SDKs retry it). */
  private refusal(): WrenError {
    this.onRefused()
    return new WrenError(
      'busy_with_large_requests',
      `Wren is busy with other large requests (${this.used} of WREN_REQUEST_MEMORY_BYTES=${this.limit} bytes in use): retry after ${RETRY_AFTER_SECONDS} s.`,
      null,
      // Sent before the body is read. The connection stays open (Node discards the rest of the body without
      // holding it): closing it made clients still uploading see EPIPE instead of this answer and its Retry-After.
      { headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } },
    )
  }
}

/** A class, not closures: every SDK request makes one. */
class Charge implements MemoryCharge {
  private released = false

  constructor(
    private readonly budget: MemoryBudget,
    private held: number,
  ) {}

  get bytes(): number {
    return this.held
  }

  raise(to: number): void {
    if (this.released || to <= this.held) return
    this.budget.raise(this, to - this.held)
    this.held = to
  }

  release(): void {
    if (this.released) return
    this.released = true
    this.budget.giveBack(this.held)
  }
}

/** Where a request's charge is kept: on Node's request itself (a WeakMap's write barrier took up to 0.7% of decide's main thread). */
const CHARGE = Symbol('wren.memoryCharge')
type Charged = { [CHARGE]?: MemoryCharge }

/** A response's 'close' listener, one function for all (no closure per request): releases its request's charge. */
function releaseOnClose(this: ServerResponse): void {
  ;(this.req as Charged)[CHARGE]?.release()
}

/** The request's charge (for decoders to raise as they inflate); undefined outside the charged routes. */
export function chargeOf(request: { raw?: object }): MemoryCharge | undefined {
  return (request.raw as Charged | undefined)?.[CHARGE]
}

/**
 * Charges every request of `app`'s routes to the budget before its body is read, from Content-Length, or as a
 * body without one streams in; refuses with the 503 past it. The charge is released when the response closes:
 * right after it is finished (Node emits 'close' on the tick after 'finish'), or when the connection closes
 * first. No onResponse hook: one hook fewer on every SDK request.
 */
export function chargeRequestMemory(app: FastifyInstance, budget: MemoryBudget): void {
  app.addHook('onRequest', (request, reply, done) => {
    const length = Number(request.headers['content-length'] ?? 0)
    let charge: MemoryCharge
    try {
      charge = budget.charge(Number.isFinite(length) && length > 0 ? length * EXPANSION : 0)
    } catch (err) {
      return done(err as WrenError)
    }
    ;(request.raw as Charged)[CHARGE] = charge
    reply.raw.on('close', releaseOnClose)
    done()
  })
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const charge = (request.raw as Charged)[CHARGE]
    if (!charge || request.headers['content-length'] !== undefined) return done(null, payload)
    let received = 0
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, next) {
        received += chunk.length
        try {
          charge.raise(received * EXPANSION)
        } catch (err) {
          return next(err as WrenError)
        }
        next(null, chunk)
      },
    })
    payload.on('error', (err) => counted.destroy(err))
    done(null, payload.pipe(counted))
  })
}
