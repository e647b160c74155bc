// /_metrics as Prometheus scrapes it: every Wren metric declared with # HELP and # TYPE, process metrics,
// HTTP requests counted by route pattern (never by raw path), capture, ingestion and decide counters that
// move with real requests, and the ingestion lag gauges following a real stall.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { api, captureBatch, drained, startWren, waitFor, type TestWren } from '../support/wren'

/** What the issue asks for, and the names other parts of Wren emit. */
const WREN_METRICS: Record<string, string> = {
  wren_http_requests_total: 'counter',
  wren_http_request_duration_seconds: 'histogram',
  wren_capture_events_total: 'counter',
  wren_capture_requests_refused_total: 'counter',
  wren_capture_backpressure: 'gauge',
  wren_ingested_events_total: 'counter',
  wren_ingestion_warnings_total: 'counter',
  wren_person_compaction_rows_total: 'counter',
  wren_dead_letters_total: 'counter',
  wren_dead_letters_replayed_total: 'counter',
  wren_ingestion_batch_retries_total: 'counter',
  wren_ingestion_batch_duration_seconds: 'histogram',
  wren_ingestion_batches_split_total: 'counter',
  wren_ingestion_lag_messages: 'gauge',
  wren_ingestion_lag_seconds: 'gauge',
  wren_ingestion_stalled_seconds: 'gauge',
  wren_ingestion_copies_waiting: 'gauge',
  wren_ingestion_copies_waiting_seconds: 'gauge',
  wren_ingest_log_bytes: 'gauge',
  wren_recording_batch_duration_seconds: 'histogram',
  wren_decide_requests_total: 'counter',
  wren_decide_evaluation_errors_total: 'counter',
}

interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

function parse(text: string): Sample[] {
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!m) continue
    const labels: Record<string, string> = {}
    for (const [, k, v] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k] = v
    samples.push({ name: m[1], labels, value: Number(m[3]) })
  }
  return samples
}

describe('/_metrics', () => {
  let t: TestWren
  let dir: string
  let stallFile: string
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wren-metrics-'))
    stallFile = path.join(dir, 'stall')
    t = await startWren({ WREN_FAILPOINTS: `ingest-stall-file=${stallFile}` })
  })
  afterAll(async () => {
    await t?.close()
    await rm(dir, { recursive: true, force: true })
  })

  const scrape = async () => {
    const res = await fetch(`${t.url}/_metrics`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = await res.text()
    return { text, samples: parse(text) }
  }
  const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
    samples
      .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      .reduce((sum, s) => sum + s.value, 0)

  it('declares every Wren metric with HELP and TYPE, and the process metrics', async () => {
    const { text } = await scrape()
    for (const [name, type] of Object.entries(WREN_METRICS)) {
      expect(text, name).toMatch(new RegExp(`^# HELP ${name} \\S.+$`, 'm'))
      expect(text, name).toContain(`# TYPE ${name} ${type}\n`)
    }
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(text).toContain(`# TYPE ${name} `)
    }
  })

  it('counts HTTP requests by route pattern and status, with latency histograms, not one series per id', async () => {
    const call = api(t)
    const ids = [randomUUID(), randomUUID(), randomUUID()]
    for (const id of ids) expect((await call('GET', `/api/environments/${t.projectId}/persons/${id}/`)).status).toBe(404)
    expect((await call('GET', `/no/such/${ids[0]}`)).status).toBe(404)
    expect((await call('GET', `/api/projects/`)).status).toBe(200)

    const { text, samples } = await scrape()
    for (const id of ids) expect(text).not.toContain(id)
    const route = '/api/environments/:project_id/persons/:id/'
    expect(value(samples, 'wren_http_requests_total', { method: 'GET', route, status: '404' })).toBe(3)
    expect(value(samples, 'wren_http_request_duration_seconds_count', { method: 'GET', route, status: '404' })).toBe(3)
    expect(value(samples, 'wren_http_request_duration_seconds_bucket', { method: 'GET', route, status: '404', le: '+Inf' })).toBe(3)
    expect(value(samples, 'wren_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1)
    expect(value(samples, 'wren_http_requests_total', { method: 'GET', route: '/api/projects/', status: '200' })).toBe(1)
  })

  it('counts events captured and ingested, and decide answers with and without evaluation errors', async () => {
    const before = (await scrape()).samples
    await captureBatch(
      t,
      Array.from({ length: 4 }, (_, i) => ({ event: 'metered', distinct_id: `m-${i}` })),
    )
    await drained(t.wren)
    const call = api(t)
    // A flag whose cohort was deleted after the flag was made cannot be evaluated.
    const cohort = await call('POST', `/api/projects/${t.projectId}/cohorts/`, {
      name: 'short-lived',
      filters: { properties: { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] } },
    })
    expect(cohort.status).toBe(201)
    expect(
      (
        await call('POST', `/api/projects/${t.projectId}/feature_flags/`, {
          key: 'needs-missing-cohort',
          filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: cohort.body.id }], rollout_percentage: 100 }] },
        })
      ).status,
    ).toBe(201)
    expect((await call('DELETE', `/api/projects/${t.projectId}/cohorts/${cohort.body.id}/`)).status).toBe(204)
    const decide = (endpoint: string) =>
      fetch(`${t.url}${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: t.projectKey, distinct_id: 'm-0' }),
      })
    let flagsCalls = 0
    let flagsErrors = 0
    await waitFor(
      async () => {
        flagsCalls++
        const failed = ((await (await decide('/flags/?v=2')).json()) as { errorsWhileComputingFlags: boolean }).errorsWhileComputingFlags
        if (failed) flagsErrors++
        return failed
      },
      { what: 'decide to report the deleted cohort' },
    )
    expect((await decide('/decide/?v=3')).status).toBe(200)

    const after = (await scrape()).samples
    const delta = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels)
    expect(delta('wren_capture_events_total')).toBe(4)
    expect(delta('wren_ingested_events_total')).toBe(4)
    expect(delta('wren_http_requests_total', { method: 'POST', route: '/batch', status: '200' })).toBe(1)
    expect(delta('wren_decide_requests_total', { endpoint: 'flags' })).toBe(flagsCalls)
    expect(delta('wren_decide_requests_total', { endpoint: 'decide' })).toBe(1)
    expect(delta('wren_decide_evaluation_errors_total', { endpoint: 'flags' })).toBe(flagsErrors)
  })

  it('shows a stall in the ingestion lag gauges, and the catch-up', async () => {
    await writeFile(stallFile, '')
    await captureBatch(
      t,
      Array.from({ length: 6 }, (_, i) => ({ event: 'stalled', distinct_id: `s-${i}` })),
    )
    const stalled = await waitFor(
      async () => {
        const { samples } = await scrape()
        return value(samples, 'wren_ingestion_lag_messages') === 6 && value(samples, 'wren_ingestion_stalled_seconds') >= 1
          ? samples
          : false
      },
      { timeoutMs: 20_000, what: 'the lag gauges to show the stall' },
    )
    expect(value(stalled, 'wren_ingestion_lag_seconds')).toBeGreaterThanOrEqual(1)
    expect(value(stalled, 'wren_ingest_log_bytes')).toBeGreaterThan(0)
    await rm(stallFile)
    await drained(t.wren)
    await waitFor(async () => value((await scrape()).samples, 'wren_ingestion_lag_messages') === 0, {
      timeoutMs: 20_000,
      what: 'the lag gauge to return to 0',
    })
    const after = (await scrape()).samples
    expect(value(after, 'wren_ingestion_lag_seconds')).toBe(0)
    expect(value(after, 'wren_ingestion_stalled_seconds')).toBe(0)
  })
})
