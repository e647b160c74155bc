// The ingest-stall-file failpoint (shared/config/failpoints.ts), for tests of readiness and backpressure:
// a real ingestion stall, made from outside the processor. While `stalled()` says so, every batch fails
// before the handler sees it, and the log redelivers it with backoff, exactly as it does when ClickHouse
// refuses a batch.
import type { Log } from './log'

export function stallingSubscriptions(log: Log, stalled: () => boolean): Log {
  return {
    append: (topic, messages) => log.append(topic, messages),
    stats: (topic, groups) => log.stats(topic, groups),
    partitions: (topic) => log.partitions(topic),
    close: () => log.close(),
    subscribe: (options) =>
      log.subscribe({
        ...options,
        handler: async (batch) => {
          if (stalled()) throw new Error('failpoint: ingestion stalled (the file of the ingest-stall-file failpoint exists)')
          return options.handler(batch)
        },
      }),
  }
}
