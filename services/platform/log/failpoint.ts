// The ingest-stall-file and recordings-stall-file failpoints (platform/config/failpoints.ts), for tests of
// readiness and backpressure: a real stall of a stage, made from outside its processor. While `stalled()` says so, every batch fails
// before the handler sees it, and the log redelivers it with backoff, exactly as it does when ClickHouse
// refuses a batch.
import type { Log } from './log'

export function stallingSubscriptions(log: Log, stalled: () => boolean, failpoint = 'ingest-stall-file'): Log {
  return {
    append: (topic, messages) => log.append(topic, messages),
    stats: (topic, groups) => log.stats(topic, groups),
    partitions: (topic) => log.partitions(topic),
    close: () => log.close(),
    subscribe: (options) =>
      log.subscribe({
        ...options,
        handler: async (batch) => {
          if (stalled()) throw new Error(`failpoint: stage stalled (the file of the ${failpoint} failpoint exists)`)
          return options.handler(batch)
        },
      }),
  }
}
