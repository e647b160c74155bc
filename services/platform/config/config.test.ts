import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadConfig, parseRoles } from './index'
import { describeConfig } from './show'
import { REFERENCE_PATH, renderReference } from './render'
import { FAILPOINTS, failpointName } from './failpoints'
import { VARIABLES } from './table'

const root = path.resolve(import.meta.dirname, '../../..')
const here = path.relative(root, import.meta.dirname)

/** Every TypeScript file under services/ but tests, as [path from the repository, text]. */
function sources(): Array<[string, string]> {
  return readdirSync(path.join(root, 'services'), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f))
    .map((f) => path.join('services', f))
    .map((f) => [f, readFileSync(path.join(root, f), 'utf8')])
}

describe('the table of variables', () => {
  it('is what docs/configuration.md says (npm run docs:config writes it)', () => {
    expect(readFileSync(path.join(root, REFERENCE_PATH), 'utf8')).toBe(renderReference())
  })

  it('is read by the config module only: no other file under services/ reads the environment', () => {
    const readers = sources()
      .filter(([file, text]) => !file.startsWith(here) && text.includes('process.env'))
      .map(([file]) => file)
    expect(readers).toEqual([])
  })

  it('holds every variable the code names', () => {
    const texts = sources().map(([, text]) => text)
    // Constants of the code (WREN_VERSION) are not variables.
    const constants = texts.flatMap((text) => [...text.matchAll(/\b(?:const|let|function|class) ([A-Z][A-Z0-9_]*)\b/g)].map((m) => m[1]))
    const known = new Set([...VARIABLES.map((v) => v.env), 'WREN_FAILPOINTS', ...constants])
    const named = new Set(texts.flatMap((text) => text.match(/\b(WREN|KAFKA|CLICKHOUSE)_[A-Z0-9_]*[A-Z0-9]\b/g) ?? []))
    // WREN_FAILPOINT_ is the prefix of the variables WREN_FAILPOINTS replaced (load.ts refuses them).
    expect([...named].filter((name) => !known.has(name) && name !== 'WREN_FAILPOINT')).toEqual([])
  })

  it('names each variable once, and each default parses', () => {
    expect(new Set(VARIABLES.map((v) => v.env)).size).toBe(VARIABLES.length)
    expect(new Set(VARIABLES.map((v) => v.field)).size).toBe(VARIABLES.length)
    expect(() => loadConfig({})).not.toThrow()
  })
})

describe('loadConfig', () => {
  it('gives the defaults for an empty environment, and an empty value counts as unset', () => {
    const config = loadConfig({ WREN_INGEST_BATCH: '' })
    expect(config).toMatchObject({
      port: 8000,
      host: '127.0.0.1',
      dataDir: path.resolve('./data'),
      cliWaitMs: 10_000,
      now: null,
      logRequests: false,
      ingestion: {
        maxBatchRecords: 10_000,
        maxBatchBytes: null,
        partRecords: 2_500,
        partBytes: null,
        maxWaitMs: 200,
        maxRetries: 3,
        compactionMs: 3_600_000,
      },
      recordings: { maxBatchRecords: 2000, partRecords: 2000, maxBatchBytes: null, maxWaitMs: 500, maxRetries: 3 },
      logRetention: { bytes: 128 << 20, ms: 3_600_000 },
      authFailures: { max: 100, windowMs: 60_000, trustedProxies: [] },
      corsOrigins: [],
      kafka: null,
      clickhouse: null,
      ai: { url: null, apiKey: null, model: null, timeoutMs: 30_000, responseFormat: 'json_schema' },
    })
    expect(Object.values(config.failpoints).every((value) => value === null)).toBe(true)
  })

  it('fills cluster sections only when their switch is set', () => {
    const config = loadConfig({ KAFKA_BROKERS: 'a:9092, b:9093', KAFKA_PARTITIONS: '0', CLICKHOUSE_URL: 'http://ch:8123' })
    expect(config.kafka).toEqual({
      brokers: ['a:9092', 'b:9093'],
      partitions: 1,
      replicationFactor: 1,
      sessionTimeoutMs: 30_000,
      lagIntervalMs: 5_000,
      topicPrefix: '',
    })
    expect(config.clickhouse).toEqual({ url: 'http://ch:8123', username: 'default', password: '', database: 'wren', cluster: null })
    expect(loadConfig({ KAFKA_BROKERS: 'a:9092', KAFKA_TOPIC_PREFIX: 'staging-' }).kafka?.topicPrefix).toBe('staging-')
    expect(() => loadConfig({ KAFKA_BROKERS: 'a:9092', KAFKA_TOPIC_PREFIX: 'staging/' })).toThrow(
      "KAFKA_TOPIC_PREFIX must be letters, digits, '.', '_' and '-' (up to 100), got staging/",
    )
  })

  it.each([
    ['PORT', 'eighty', 'PORT must be a port number (0 to 65535), got eighty'],
    ['WREN_SHUTDOWN_TIMEOUT_MS', '-1', 'WREN_SHUTDOWN_TIMEOUT_MS must be a non-negative integer, got -1'],
    ['WREN_BACKGROUND_NICE', '20', 'WREN_BACKGROUND_NICE must be an integer from 0 to 19, got 20'],
    ['WREN_AI_URL', 'not a url', 'WREN_AI_URL must be an http or https URL, got not a url'],
    ['WREN_AI_RESPONSE_FORMAT', 'xml', 'WREN_AI_RESPONSE_FORMAT must be one of json_schema, json_object, none, got xml'],
    ['LOG_REQUESTS', 'yes', 'LOG_REQUESTS must be 1, true, 0 or false, got yes'],
    ['WREN_NOW', 'yesterday', 'WREN_NOW must be an ISO 8601 instant such as 2024-01-31T12:00:00Z, got yesterday'],
    ['WREN_CORS_ORIGINS', 'https://a.example.com/app', 'WREN_CORS_ORIGINS must be origins such as https://app.example.com'],
    ['KAFKA_BROKERS', 'kafka', 'KAFKA_BROKERS must be host:port of each broker, comma-separated, got kafka'],
  ])('stops on a bad %s, naming it and what it accepts', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(message)
  })

  it.each([
    ['WREN_PROJECT_API_KEY', 'phc_replace_me_with_40_random_characters_0000', 'a placeholder'],
    ['WREN_PERSONAL_API_KEY', 'phx_replace_me_with_40_random_characters_0000', 'a placeholder'],
    ['WREN_PERSONAL_API_KEY', 'phx_…', 'a placeholder'],
    ['WREN_PERSONAL_API_KEY', 'phx_put_your_personal_api_key_here_please', 'a placeholder'],
    ['WREN_PROJECT_API_KEY', 'phc_abc123', 'has 10'],
  ])('refuses a bootstrap key that is a placeholder or short (%s=%s), never showing it', (name, value, why) => {
    const error = (() => {
      try {
        loadConfig({ [name]: value })
      } catch (e) {
        return (e as Error).message
      }
      return 'accepted'
    })()
    expect(error).toBe(
      `${name} must be a key of at least 32 characters that is not a placeholder (\`npx wren init\` writes fresh ones into .env): this one ${why === 'a placeholder' ? 'is a placeholder' : why}`,
    )
    expect(error).not.toContain(value)
  })

  it('takes a generated key', () => {
    const key = 'phc_Z7kP2qW9xT4mB8vN1cR6yH3jL5sD0fG2aQ9eU4oI'
    expect(loadConfig({ WREN_PROJECT_API_KEY: key }).bootstrapProjectApiKey).toBe(key)
  })

  it('names every bad variable at once', () => {
    expect(() => loadConfig({ PORT: 'x', WREN_INGEST_BATCH: 'y' })).toThrow(
      'PORT must be a port number (0 to 65535), got x\nWREN_INGEST_BATCH must be a non-negative integer, got y',
    )
  })

  it('refuses an unknown role', () => {
    expect(() => parseRoles('ingest,search')).toThrow('unknown role search; roles are all, capture, ingest, api, decide, recordings')
  })
})

describe('failpoints', () => {
  it('are read from WREN_FAILPOINTS', () => {
    const { failpoints } = loadConfig({ WREN_FAILPOINTS: 'ingest-poison-event=poison, oom-after-ms=1000' })
    expect(failpoints).toMatchObject({ ingestPoisonEvent: 'poison', oomAfterMs: 1000, ingestStallFile: null })
  })

  it('refuse an unknown name, a missing value, and the variables WREN_FAILPOINTS replaced', () => {
    expect(() => loadConfig({ WREN_FAILPOINTS: 'crash' })).toThrow(
      'WREN_FAILPOINTS: unknown failpoint crash; failpoints are ingest-crash-after-batches,',
    )
    expect(() => loadConfig({ WREN_FAILPOINTS: 'oom-after-ms=soon' })).toThrow(
      'oom-after-ms takes a value (oom-after-ms=…), a non-negative integer',
    )
    expect(() => loadConfig({ WREN_FAILPOINT_POISON_EVENT: 'poison' })).toThrow('WREN_FAILPOINT_POISON_EVENT is no longer read')
  })

  it('are each set by the tests their declaration names', () => {
    for (const [field, { tests }] of Object.entries(FAILPOINTS)) {
      for (const test of tests) expect(readFileSync(path.join(root, test), 'utf8'), test).toContain(`${failpointName(field)}=`)
    }
  })
})

describe('wren config', () => {
  it('shows each value, masks keys and passwords, and marks defaults', () => {
    const { text, problems } = describeConfig({
      PORT: '9000',
      WREN_PERSONAL_API_KEY: 'phx_q8Xw2LmZr4TbN7vKc1YpHs9DfJ3gUo6E',
      CLICKHOUSE_URL: 'http://wren:hunter2@clickhouse:8123',
      WREN_PORT: '1',
    })
    expect(problems).toEqual([])
    expect(text).toMatch(/^ {2}PORT +9000$/m)
    expect(text).toMatch(/^ {2}HOST +127\.0\.0\.1 {2}\(default\)$/m)
    expect(text).toMatch(/^ {2}WREN_PERSONAL_API_KEY +\*{8}$/m)
    expect(text).toMatch(/^ {2}CLICKHOUSE_URL +http:\/\/wren:\*{8}@clickhouse:8123$/m)
    expect(text).not.toMatch(/phx_q8Xw2LmZr4TbN7vKc1YpHs9DfJ3gUo6E|hunter2/)
    // A misspelt variable is set but read by nothing.
    expect(text).toMatch(/^set, but not read by Wren\n {2}WREN_PORT$/m)
  })

  it('says what would stop a start', () => {
    expect(describeConfig({ WREN_WATCHDOG_MS: 'off' }).problems).toEqual(['WREN_WATCHDOG_MS must be a non-negative integer, got off'])
  })
})
