// Response shapes per endpoint and version (reference §4.2–4.3).
import type { Evaluation } from './service'
import type { FlagResult, Reason } from './evaluate'
import type { FeatureFlag } from '../flags/types'

export type Shape = 'decide_v1' | 'decide_v2' | 'legacy' | 'flags_v2'

/** /decide: v absent or 1 → v1, 2 → v2, 3 → legacy, ≥4 → flags v2. /flags: ≥2 → v2, otherwise legacy. */
export function shapeFor(endpoint: 'decide' | 'flags', v: string | undefined): Shape {
  const n = v === undefined || v === '' ? NaN : Number.parseInt(v, 10)
  if (endpoint === 'decide') {
    if (Number.isNaN(n) || n <= 1) return 'decide_v1'
    if (n === 2) return 'decide_v2'
    if (n === 3) return 'legacy'
    return 'flags_v2'
  }
  if (v === undefined) return 'flags_v2'
  return !Number.isNaN(n) && n >= 2 ? 'flags_v2' : 'legacy'
}

const value = (r: FlagResult): boolean | string => (r.enabled ? (r.variant ?? true) : false)

export function flagsBody(shape: Shape, evaluation: Evaluation): Record<string, unknown> {
  const { results, errors } = evaluation
  switch (shape) {
    case 'decide_v1':
      return { featureFlags: results.filter((r) => r.enabled).map((r) => r.flag.key), errorsWhileComputingFlags: errors }
    case 'decide_v2':
      return {
        featureFlags: Object.fromEntries(results.filter((r) => r.enabled).map((r) => [r.flag.key, value(r)])),
        errorsWhileComputingFlags: errors,
      }
    case 'legacy':
      return {
        featureFlags: Object.fromEntries(results.map((r) => [r.flag.key, value(r)])),
        featureFlagPayloads: Object.fromEntries(results.filter((r) => r.enabled && r.payload !== null).map((r) => [r.flag.key, r.payload])),
        errorsWhileComputingFlags: errors,
      }
    case 'flags_v2':
      return {
        errorsWhileComputingFlags: errors,
        flags: Object.fromEntries(
          results.map((r) => [
            r.flag.key,
            {
              key: r.flag.key,
              enabled: r.enabled,
              variant: r.enabled ? r.variant : null,
              ...(r.failed ? { failed: true } : {}),
              reason: r.reason,
              metadata: {
                id: r.flag.id,
                version: r.flag.version ?? 0,
                description: r.flag.name || null,
                payload: r.enabled ? r.payload : null,
                has_experiment: false,
              },
            },
          ]),
        ),
      }
  }
}

// ---- the same bodies as JSON bytes, from per-flag-version pieces ------------------------------------
// Decide answers every request with every flag, and a flag's entry depends only on its version and on
// (reason, enabled, variant): each entry is encoded once and reused, and an answer is a concatenation of
// ready-made bytes. Must stay equal to JSON.stringify(flagsBody(shape, evaluation)) once parsed
// (responses.test.ts checks it).

const NO_VARIANT = '\u0000'
const MAX_ENTRIES_PER_FLAG = 256
const COMMA = Buffer.from(',')

interface Pieces {
  key: string
  id: number
  version: number
  name: string
  /** flags v2 entries: reason → [disabled, enabled] → variant → bytes. */
  v2: WeakMap<Reason, [Map<string, Buffer>, Map<string, Buffer>]>
  /** legacy `"key":value` members by value, and `"key":payload` members by payload. */
  legacyValues: Map<string, Buffer>
  legacyPayloads: Map<string, Buffer>
  entries: number
}

const piecesByFlag = new WeakMap<FeatureFlag, Pieces>()

function piecesOf(flag: FeatureFlag): Pieces {
  let p = piecesByFlag.get(flag)
  // Flag versions are immutable objects; the checks only guard against a caller mutating one.
  if (!p || p.key !== flag.key || p.id !== flag.id || p.version !== flag.version || p.name !== flag.name) {
    p = {
      key: flag.key,
      id: flag.id,
      version: flag.version,
      name: flag.name,
      v2: new WeakMap(),
      legacyValues: new Map(),
      legacyPayloads: new Map(),
      entries: 0,
    }
    piecesByFlag.set(flag, p)
  }
  return p
}

function v2Entry(r: FlagResult): string {
  const key = JSON.stringify(r.flag.key)
  const variant = r.enabled && r.variant !== null ? JSON.stringify(r.variant) : 'null'
  const payload = r.enabled && r.payload !== null ? JSON.stringify(r.payload) : 'null'
  const meta = `{"id":${JSON.stringify(r.flag.id)},"version":${JSON.stringify(r.flag.version ?? 0)},"description":${JSON.stringify(r.flag.name || null)},"payload":${payload},"has_experiment":false}`
  return `${key}:{"key":${key},"enabled":${r.enabled},"variant":${variant}${r.failed ? ',"failed":true' : ''},"reason":${JSON.stringify(r.reason)},"metadata":${meta}}`
}

function v2Bytes(r: FlagResult): Buffer {
  // Shared (frozen) reasons identify a state; any other reason object is encoded afresh.
  if (!Object.isFrozen(r.reason)) return Buffer.from(v2Entry(r))
  const p = piecesOf(r.flag)
  let byEnabled = p.v2.get(r.reason)
  if (!byEnabled) p.v2.set(r.reason, (byEnabled = [new Map(), new Map()]))
  const byVariant = byEnabled[r.enabled ? 1 : 0]
  const variantKey = r.variant ?? NO_VARIANT
  let bytes = byVariant.get(variantKey)
  if (bytes === undefined) {
    bytes = Buffer.from(v2Entry(r))
    if (p.entries++ < MAX_ENTRIES_PER_FLAG) byVariant.set(variantKey, bytes)
  }
  return bytes
}

function cachedMember(p: Pieces, cache: Map<string, Buffer>, flagKey: string, valueKey: string, json: () => string): Buffer {
  let bytes = cache.get(valueKey)
  if (bytes === undefined) {
    bytes = Buffer.from(`${JSON.stringify(flagKey)}:${json()}`)
    if (p.entries++ < MAX_ENTRIES_PER_FLAG) cache.set(valueKey, bytes)
  }
  return bytes
}

/** The members (without the braces) of JSON.stringify(flagsBody(shape, evaluation)), as byte pieces. */
export function flagsBodyParts(shape: Shape, evaluation: Evaluation): Buffer[] {
  const { results, errors } = evaluation
  if (shape === 'flags_v2') {
    const parts: Buffer[] = [Buffer.from(`"errorsWhileComputingFlags":${errors},"flags":{`)]
    for (let i = 0; i < results.length; i++) {
      if (i > 0) parts.push(COMMA)
      parts.push(v2Bytes(results[i]))
    }
    parts.push(CLOSE)
    return parts
  }
  if (shape === 'legacy') {
    const parts: Buffer[] = [FEATURE_FLAGS_OPEN]
    const payloads: Buffer[] = []
    for (let i = 0; i < results.length; i++) {
      const r = results[i]
      const p = piecesOf(r.flag)
      if (i > 0) parts.push(COMMA)
      const valueKey = r.enabled ? (r.variant ?? NO_VARIANT) : '\u0001'
      parts.push(cachedMember(p, p.legacyValues, r.flag.key, valueKey, () => JSON.stringify(value(r))))
      if (r.enabled && r.payload !== null) {
        if (payloads.length > 0) payloads.push(COMMA)
        const payload = r.payload
        payloads.push(cachedMember(p, p.legacyPayloads, r.flag.key, payload, () => JSON.stringify(payload)))
      }
    }
    parts.push(PAYLOADS_OPEN, ...payloads, Buffer.from(`},"errorsWhileComputingFlags":${errors}`))
    return parts
  }
  return [Buffer.from(JSON.stringify(flagsBody(shape, evaluation)).slice(1, -1))]
}

const CLOSE = Buffer.from('}')
const FEATURE_FLAGS_OPEN = Buffer.from('"featureFlags":{')
const PAYLOADS_OPEN = Buffer.from('},"featureFlagPayloads":{')
