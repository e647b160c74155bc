// What the SDK-body and capture decoder tests build their requests from, and how they expect a refusal.
import { expect } from 'vitest'
import { WrenError } from '../../errors'
import type { SdkRequest } from '../sdk-body'

export const TOKEN = 'phc_test_token'

export interface RequestOptions {
  path?: string
  query?: Record<string, string | undefined>
  headers?: Record<string, string>
}

/** An SDK request to `/e/` (or opts.path) whose body is `body`: bytes as they are, text, or JSON. */
export function sdkRequest(body: unknown, opts: RequestOptions = {}): SdkRequest {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8')
  return { path: opts.path ?? '/e/', query: opts.query ?? {}, headers: opts.headers ?? {}, body: bytes }
}

/** A minimal event for the test token, with `extra` fields. */
export const sdkEvent = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  event: '$pageview',
  distinct_id: 'user-1',
  properties: { token: TOKEN },
  ...extra,
})

/** Expects `p` to fail with a WrenError of this status and code, and returns it. */
export async function rejectsWith(p: Promise<unknown>, status: number, code: string): Promise<WrenError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(WrenError)
  const w = err as WrenError
  expect({ status: w.status, code: w.code }).toEqual({ status, code })
  return w
}

export const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64')
