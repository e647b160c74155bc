// Every error a user can see, in one place. Route handlers throw these; one error handler renders them
// as PostHog's DRF-shaped JSON body: {type, code, detail, attr}.

export type ErrorType = 'validation_error' | 'authentication_error' | 'invalid_request' | 'throttled_error' | 'server_error'

export class WrenError extends Error {
  readonly status: number
  readonly code: string
  readonly type: ErrorType
  readonly attr: string | null
  /** Response headers that go with the error (Retry-After). */
  readonly headers: Record<string, string>

  constructor(status: number, code: string, detail: string, attr: string | null = null, headers: Record<string, string> = {}) {
    super(detail)
    this.status = status
    this.code = code
    this.attr = attr
    this.headers = headers
    this.type =
      status === 400 ? 'validation_error' : status === 401 || status === 403 ? 'authentication_error' : status === 429 ? 'throttled_error' : status >= 500 ? 'server_error' : 'invalid_request'
  }

  toJSON(): { type: ErrorType; code: string; detail: string; attr: string | null } {
    return { type: this.type, code: this.code, detail: this.message, attr: this.attr }
  }
}

export const badRequest = (code: string, detail: string, attr: string | null = null): WrenError => new WrenError(400, code, detail, attr)
export const unauthorized = (code: string, detail: string): WrenError => new WrenError(401, code, detail)
export const forbidden = (code: string, detail: string): WrenError => new WrenError(403, code, detail)
export const notFound = (detail = 'Not found.'): WrenError => new WrenError(404, 'not_found', detail)
export const methodNotAllowed = (detail: string): WrenError => new WrenError(405, 'method_not_allowed', detail)
export const payloadTooLarge = (detail: string): WrenError => new WrenError(413, 'payload_too_large', detail)
export const throttled = (detail: string): WrenError => new WrenError(429, 'throttled', detail)
export const unavailable = (detail: string): WrenError => new WrenError(503, 'unavailable', detail)
/** Capture's backpressure: ingestion is too far behind to take more events now; the SDKs retry. */
export const BACKLOG_FULL = 'ingestion_backlog_full'
export const backlogFull = (detail: string, retryAfterSeconds: number): WrenError =>
  new WrenError(503, BACKLOG_FULL, detail, null, { 'retry-after': String(retryAfterSeconds) })
