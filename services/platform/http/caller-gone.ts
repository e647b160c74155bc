// A request's "the caller has gone" signal: aborted when the client's connection closes before Wren has
// answered, so that the queries run for it stop (platform/clickhouse: queryRows) and work queued for it is
// never started.
import type { FastifyReply } from 'fastify'

const signals = new WeakMap<FastifyReply, AbortSignal>()

/** Aborts once the client is gone without its answer (not when the answer is sent). */
export function callerGone(reply: FastifyReply): AbortSignal {
  const known = signals.get(reply)
  if (known) return known
  const controller = new AbortController()
  const response = reply.raw
  const gone = () => {
    if (!response.writableFinished) controller.abort(new Error('the caller has gone'))
  }
  if (response.destroyed) gone()
  else response.once('close', gone)
  signals.set(reply, controller.signal)
  return controller.signal
}
