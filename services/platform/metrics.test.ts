// The counters and histograms Wren counts itself must read at /_metrics exactly as prom-client's own Counter
// and Histogram read for the same updates: same series, order, labels, buckets, sums.
import { describe, expect, it } from 'vitest'
import { Counter, Histogram, Registry } from 'prom-client'
import { CATALOGUE, Metrics, type CounterName, type HistogramName, type Labels, type MetricName } from './metrics'

/** The exposition of the catalogue's counters and histograms through prom-client's own metric classes. */
function promClientReference() {
  const registry = new Registry()
  const counters = new Map<string, Counter>()
  const histograms = new Map<string, Histogram>()
  for (const [name, def] of Object.entries(CATALOGUE) as Array<[MetricName, (typeof CATALOGUE)[MetricName]]>) {
    const labelNames = [...('labelNames' in def ? def.labelNames : [])]
    if (def.type === 'counter') counters.set(name, new Counter({ name, help: def.help, labelNames, registers: [registry] }))
    if (def.type === 'histogram')
      histograms.set(
        name,
        new Histogram({
          name,
          help: def.help,
          labelNames,
          buckets: [...('buckets' in def ? def.buckets : [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30])],
          registers: [registry],
        }),
      )
  }
  const known = (name: MetricName, labels: Labels | undefined) => {
    const out: Labels = {}
    const def = CATALOGUE[name]
    for (const key of 'labelNames' in def ? def.labelNames : []) if (labels?.[key] !== undefined) out[key] = labels[key]
    return out
  }
  return {
    inc: (name: CounterName, by: number, labels?: Labels) => counters.get(name)!.inc(known(name, labels), by),
    observe: (name: HistogramName, value: number, labels?: Labels) => histograms.get(name)!.observe(known(name, labels), value),
    render: () => registry.metrics(),
    json: () => registry.getMetricsAsJSON(),
  }
}

/** Only the catalogue's counters and histograms (the process metrics and gauges are prom-client's in both). */
function ours(text: string): string {
  return text
    .split('\n\n')
    .filter((block) => /^# HELP wren_/.test(block) && !/# TYPE \S+ gauge/.test(block))
    .join('\n\n')
    .trim()
}

describe('Metrics', () => {
  it('renders counters and histograms as prom-client does for the same updates', async () => {
    const metrics = new Metrics()
    const reference = promClientReference()
    const http = { method: 'POST', route: '/e', status: '200' }
    const updates: Array<(m: Pick<Metrics, 'inc' | 'observe'>) => void> = [
      (m) => m.inc('wren_capture_events_total', 3),
      (m) => m.inc('wren_http_requests_total', 1, http),
      (m) => m.observe('wren_http_request_duration_seconds', 0.0004, http),
      // The same values in another object, in another order, with a label the metric does not have.
      (m) => m.inc('wren_http_requests_total', 1, { status: '200', route: '/e', method: 'POST', extra: 'dropped' }),
      (m) => m.observe('wren_http_request_duration_seconds', 0.003, { status: '200', route: '/e', method: 'POST' }),
      (m) => m.inc('wren_http_requests_total', 1, { method: 'GET', route: 'unmatched', status: '404' }),
      (m) => m.observe('wren_http_request_duration_seconds', 42, { method: 'GET', route: 'unmatched', status: '404' }),
      (m) => m.observe('wren_http_request_duration_seconds', 0.01, http),
      (m) => m.inc('wren_decide_requests_total', 1, { endpoint: 'flags' }),
      (m) => m.inc('wren_decide_requests_total', 0, { endpoint: 'decide' }),
      (m) => m.inc('wren_capture_requests_refused_total', 2, { reason: 'backlog' }),
      (m) => m.inc('wren_dead_letters_total', 1),
      (m) => m.observe('wren_ingestion_batch_duration_seconds', 0.25),
      (m) => m.observe('wren_ingestion_part_bytes', 5 << 20),
      (m) => m.observe('wren_ingestion_part_bytes', 2 << 30),
    ]
    expect(ours(await metrics.render())).toBe(ours(await reference.render()))
    for (let round = 0; round < 3; round++) for (const update of updates) (update(metrics), update(reference))
    const text = ours(await metrics.render())
    expect(text).toBe(ours(await reference.render()))
    expect(text).toContain('wren_http_request_duration_seconds_bucket{le="0.001",method="POST",route="/e",status="200"} 3')
    expect(text).toContain('wren_http_requests_total{method="POST",route="/e",status="200"} 6')

    const json = (await metrics.registry.getMetricsAsJSON()).filter((m) => m.name.startsWith('wren_') && String(m.type) !== 'gauge')
    const referenceJson = (await reference.json()).filter((m) => m.name.startsWith('wren_') && String(m.type) !== 'gauge')
    expect(JSON.parse(JSON.stringify(json))).toEqual(JSON.parse(JSON.stringify(referenceJson)))

    expect(metrics.get('wren_http_requests_total')).toBe(9)
    expect(metrics.get('wren_http_request_duration_seconds')).toBe(12)
    expect(metrics.get('wren_capture_events_total')).toBe(9)
  })

  it('keeps label sets apart whose values hold the characters that join names and values', async () => {
    const metrics = new Metrics()
    metrics.inc('wren_http_requests_total', 1, { method: 'GET', route: '/a', status: '200' })
    metrics.inc('wren_http_requests_total', 1, { method: 'GET,route:/a', status: '200' })
    const text = await metrics.render()
    expect(text).toContain('wren_http_requests_total{method="GET",route="/a",status="200"} 1')
    expect(text).toContain('wren_http_requests_total{method="GET,route:/a",status="200"} 1')
  })

  it('never breaks its caller: a negative or NaN count and a non-finite observation are dropped', async () => {
    const metrics = new Metrics()
    metrics.inc('wren_capture_events_total', -1)
    metrics.inc('wren_capture_events_total', NaN)
    metrics.observe('wren_ingestion_batch_duration_seconds', Infinity)
    expect(metrics.get('wren_capture_events_total')).toBe(0)
    expect(metrics.get('wren_ingestion_batch_duration_seconds')).toBe(0)
    expect(await metrics.render()).toContain('\nwren_capture_events_total 0\n')
  })
})
