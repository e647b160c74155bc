// Response shapes per endpoint and version (reference §4.2–4.3).
import type { Evaluation } from './service'
import type { FlagResult } from './evaluate'
import type { FeatureFlag } from './types'

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
      return { featureFlags: Object.fromEntries(results.filter((r) => r.enabled).map((r) => [r.flag.key, value(r)])), errorsWhileComputingFlags: errors }
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
              metadata: { id: r.flag.id, version: r.flag.version ?? 0, description: r.flag.name || null, payload: r.enabled ? r.payload : null, has_experiment: false },
            },
          ]),
        ),
      }
  }
}

// ---- the same bodies as JSON text, built from per-flag-version fragments ----------------------------
// Decide answers every request with every flag: building the text directly (instead of an object tree
// for JSON.stringify) spares most of the per-request allocation. Must stay equal to
// JSON.stringify(flagsBody(shape, evaluation)) (responses.test.ts checks it).

interface Fragments {
  /** `"<key>":` */
  member: string
  /** `"<key>":{"key":"<key>","enabled":` */
  v2Open: string
  /** `,"metadata":{"id":1,"version":3,"description":null,"payload":` */
  v2Meta: string
  payloads: Map<string, string>
}

const fragments = new WeakMap<FeatureFlag, Fragments>()
const reasonJson = new WeakMap<object, string>()
const str = (s: string): string => JSON.stringify(s)

function fragmentsOf(flag: FeatureFlag): Fragments {
  let f = fragments.get(flag)
  if (!f || f.member !== `${str(flag.key)}:`) {
    const key = str(flag.key)
    f = {
      member: `${key}:`,
      v2Open: `${key}:{"key":${key},"enabled":`,
      v2Meta: `,"metadata":{"id":${JSON.stringify(flag.id)},"version":${JSON.stringify(flag.version ?? 0)},"description":${JSON.stringify(flag.name || null)},"payload":`,
      payloads: new Map(),
    }
    fragments.set(flag, f)
  }
  return f
}

function payloadJson(f: Fragments, payload: string): string {
  let json = f.payloads.get(payload)
  if (json === undefined) {
    json = str(payload)
    if (f.payloads.size < 64) f.payloads.set(payload, json)
  }
  return json
}

function reasonText(reason: FlagResult['reason']): string {
  let json = reasonJson.get(reason)
  if (json === undefined) {
    json = JSON.stringify(reason)
    if (Object.isFrozen(reason)) reasonJson.set(reason, json)
  }
  return json
}

const valueJson = (r: FlagResult): string => (r.enabled ? (r.variant === null ? 'true' : str(r.variant)) : 'false')

/** The members (without the braces) of JSON.stringify(flagsBody(shape, evaluation)). */
export function flagsBodyMembers(shape: Shape, evaluation: Evaluation): string {
  const { results, errors } = evaluation
  if (shape === 'flags_v2') {
    let out = `"errorsWhileComputingFlags":${errors},"flags":{`
    for (let i = 0; i < results.length; i++) {
      const r = results[i]
      const f = fragmentsOf(r.flag)
      if (i > 0) out += ','
      out += f.v2Open
      out += r.enabled ? 'true' : 'false'
      out += ',"variant":'
      out += r.enabled && r.variant !== null ? str(r.variant) : 'null'
      if (r.failed) out += ',"failed":true'
      out += ',"reason":'
      out += reasonText(r.reason)
      out += f.v2Meta
      out += r.enabled && r.payload !== null ? payloadJson(f, r.payload) : 'null'
      out += ',"has_experiment":false}}'
    }
    return out + '}'
  }
  if (shape === 'legacy') {
    let flags = ''
    let payloads = ''
    for (let i = 0; i < results.length; i++) {
      const r = results[i]
      const f = fragmentsOf(r.flag)
      if (i > 0) flags += ','
      flags += f.member + valueJson(r)
      if (r.enabled && r.payload !== null) {
        if (payloads !== '') payloads += ','
        payloads += f.member + payloadJson(f, r.payload)
      }
    }
    return `"featureFlags":{${flags}},"featureFlagPayloads":{${payloads}},"errorsWhileComputingFlags":${errors}`
  }
  return JSON.stringify(flagsBody(shape, evaluation)).slice(1, -1)
}
