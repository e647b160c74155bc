// The operations routes every role serves: liveness, readiness and metrics. Readiness is derived from the
// stage streams: a process that runs a stage is unready when that stage is stuck or far behind.
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { ClickHouseClient } from '../platform/clickhouse'
import type { Config } from '../platform/config'
import { lagJson, lagProblems, type CopiesWaiting, type IngestionLagMonitor } from '../platform/ingestion-lag'
import type { Metrics } from '../platform/metrics'
import { routesOf } from '../platform/http/route'
import { AnyObject } from '../platform/http/schemas'
import type { CaptureBackpressure } from '../capture/backpressure'

export interface OperationsDeps {
  roles: string[]
  log: 'kafka' | 'embedded'
  clickhouse: ClickHouseClient
  metrics: Metrics
  readiness: Config['readiness']
  /** Each stage stream's lag, under its report name, and whether this process runs its stage. */
  stages: Array<{
    report: 'ingestion' | 'recordings'
    lag: IngestionLagMonitor
    runsHere: boolean
    /** In the process that runs the stage: what it stored and has not made queryable yet (wide persons' copies). */
    copies?: () => CopiesWaiting | null
  }>
  /** Capture's backpressure, in a process that runs capture. */
  capture: {
    backpressure: CaptureBackpressure
    recordingsBackpressure: CaptureBackpressure
    config: Pick<Config, 'maxBacklog' | 'maxRecordingsBacklog' | 'maxRecordingsBacklogBytes'>
  } | null
}

export async function operationsRoutes(app: FastifyInstance, deps: OperationsDeps): Promise<void> {
  const route = routesOf(app, { projects: null, tag: 'operations' })
  const Lag = AnyObject(
    'How far behind ingestion is: messages, seconds, stalled_seconds, log_bytes; in the process that runs it, copies_waiting(_seconds): stored events of wide persons not in queries yet.',
  )
  const lags = () => Object.fromEntries(deps.stages.map((s) => [s.report, lagJson(s.lag.current(), s.copies?.())]))
  route({
    method: 'GET',
    url: '/_health',
    summary: 'Liveness: the process answers, with its roles and ingestion’s lag',
    access: { public: 'no key.' },
    schema: {
      response: {
        200: Type.Object({
          status: Type.Enum(['ok']),
          roles: Type.Array(Type.String()),
          ingestion: Lag,
          recordings: Lag,
          capture: Type.Optional(
            Type.Object({
              refusing: Type.Boolean({ description: 'capture refuses events: ingestion is past WREN_MAX_BACKLOG' }),
              max_backlog: Type.Integer(),
              recordings: Type.Object({
                refusing: Type.Boolean({ description: '/s/ refuses snapshots: the recordings processor is past its limits' }),
                max_backlog: Type.Integer(),
                max_backlog_bytes: Type.Integer({ description: 'embedded log only; Kafka does not report bytes' }),
              }),
            }),
          ),
        }),
      },
    },
    handler: async () => ({
      status: 'ok',
      roles: deps.roles,
      ...lags(),
      ...(deps.capture ? { capture: captureJson(deps.capture) } : {}),
    }),
  })
  const Readiness = Type.Object({
    status: Type.String(),
    reasons: Type.Array(Type.Object({ code: Type.String(), detail: Type.String() })),
    roles: Type.Array(Type.String()),
    log: Type.Enum(['kafka', 'embedded']),
    ingestion: Lag,
    recordings: Lag,
  })
  route({
    method: 'GET',
    url: '/_readyz',
    summary: 'Readiness: ClickHouse answers and (in a process that runs them) ingestion and the recordings processor keep up',
    access: { public: 'no key.' },
    schema: { response: { 200: Readiness, 503: Readiness } },
    handler: async (_req, reply) => {
      const ping = await deps.clickhouse.ping()
      // The Kafka log is connected (topics exist, producer up) before the server listens at all. Only a
      // process that runs a stage is unready when that stage is behind: taking capture or decide out of a
      // load balancer would not help it (capture refuses events itself past WREN_MAX_BACKLOG).
      const reasons = [
        ...(ping.success ? [] : [{ code: 'clickhouse_unavailable', detail: `ClickHouse does not answer: ${ping.error.message}` }]),
        ...deps.stages.flatMap((s) => (s.runsHere ? lagProblems(s.lag.current(), deps.readiness, s.report, s.copies?.()) : [])),
      ]
      const status = reasons.length ? reasons[0].code.replace('_', ' ') : 'ready'
      return reply.status(reasons.length ? 503 : 200).send({ status, reasons, roles: deps.roles, log: deps.log, ...lags() })
    },
  })
  route({
    method: 'GET',
    url: '/_metrics',
    summary: 'Prometheus metrics',
    access: { public: 'no key.' },
    schema: { response: { 200: Type.String({ description: 'Prometheus text format' }) } },
    handler: async (_req, reply) => reply.type(deps.metrics.contentType).send(await deps.metrics.render()),
  })
}

/** Capture's backpressure as /_health shows it. */
function captureJson(capture: NonNullable<OperationsDeps['capture']>) {
  const { config } = capture
  return {
    refusing: capture.backpressure.active,
    max_backlog: config.maxBacklog,
    recordings: {
      refusing: capture.recordingsBackpressure.active,
      max_backlog: config.maxRecordingsBacklog,
      max_backlog_bytes: config.maxRecordingsBacklogBytes,
    },
  }
}
