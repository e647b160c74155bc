// Counters a user can scrape at /_metrics (Prometheus text format).
export class Metrics {
  private readonly counters = new Map<string, number>()
  private readonly gauges = new Map<string, () => number>()

  inc(name: string, by = 1): void {
    this.counters.set(name, (this.counters.get(name) ?? 0) + by)
  }

  /** A histogram observation (kept here as _sum and _count counters). */
  observe(name: string, value: number): void {
    this.inc(`${name}_sum`, value)
    this.inc(`${name}_count`)
  }

  gauge(name: string, read: () => number): void {
    this.gauges.set(name, read)
  }

  get(name: string): number {
    return this.counters.get(name) ?? this.gauges.get(name)?.() ?? 0
  }

  render(): string {
    const lines: string[] = []
    for (const [name, value] of this.counters) lines.push(`# TYPE ${name} counter`, `${name} ${value}`)
    for (const [name, read] of this.gauges) lines.push(`# TYPE ${name} gauge`, `${name} ${read()}`)
    return lines.join('\n') + '\n'
  }
}
