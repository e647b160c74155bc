// Every route group as one table: its plugin, what it is handed (built on first use from the stores, stages,
// jobs and services: services.ts createParts), and its CORS scope. Which processes mount a group is the role
// table's business (roles.ts); a group is mounted once, in the order roles.ts lists the groups, however many
// of a process's roles serve it.
import type { FastifyInstance, FastifyPluginAsync, FastifyPluginOptions } from 'fastify'
import { captureQueryRoutes, captureRoutes } from '../capture/routes'
import { recordingCaptureRoutes } from '../capture/recording-intake'
import { staticRoutes } from '../static/routes'
import { projectRoutes } from '../projects/routes'
import { accountRoutes, userBasic } from '../accounts/routes'
import { annotationRoutes } from '../annotations/routes'
import { experimentRoutes } from '../experiments/routes'
import { surveyRoutes } from '../surveys/routes'
import { surveyFlags } from './survey-flags'
import { deadLetterRoutes } from '../dead-letters/routes'
import { eventRoutes } from '../events/routes'
import { definitionRoutes } from '../definitions/routes'
import { personRoutes } from '../persons/routes'
import { actionRoutes } from '../actions/routes'
import { cohortRoutes } from '../cohorts/routes'
import { queryRoutes } from '../query/routes'
import { insightRoutes } from '../insights/routes'
import { flagRoutes } from '../flags/routes'
import { flagAnswerRoutes, publicFlagRoutes, type PublicFlagDeps } from '../decide/routes'
import { snapshotRoutes } from '../recordings/snapshot-routes'
import { recordingRoutes } from '../recordings/recording-routes'
import { sharingRoutes } from '../recordings/sharing-routes'
import { aiRoutes } from '../recordings/ai/routes'
import { playerRoutes } from '../recordings/player-routes'
import { webRoutes } from '../web/routes'
import { operationsRoutes } from './operations-routes'
import type { CorsScope } from './server'
import type { Parts } from './services'
import { STAGE_STREAMS } from '../platform/log/streams'
import type { RouteGroupName } from './roles'
import type { PersonalApiKey } from '../platform/tenancy'

interface RouteGroup {
  cors: CorsScope
  /** Registers the group's plugin in `scope` with what it is handed. */
  mount(scope: FastifyInstance, parts: Parts): Promise<void>
}

/** A table row: the plugin and its dependencies, type-checked against each other. */
function group<O extends FastifyPluginOptions>(
  cors: CorsScope,
  plugin: FastifyPluginAsync<O>,
  deps: (parts: Parts) => Promise<O> | O,
): RouteGroup {
  return {
    cors,
    mount: async (scope, parts) => void (await scope.register(plugin, await deps(parts))),
  }
}

const none = () => ({})

/** What both flag route groups read (the SDKs' POST /decide and /flags, and the other public flag routes). */
async function flagAnswerDeps(s: Parts): Promise<PublicFlagDeps> {
  const { clock, metrics } = s.ctx
  return {
    projects: await s.stores.projects(),
    service: await s.services.flagsService(),
    snapshot: await s.services.personSnapshot(),
    cohorts: await s.services.cohortReader(),
    surveys: await s.services.runningSurveys(),
    clock,
    metrics,
    memory: await s.services.requestMemory(),
  }
}

async function captureDeps(s: Parts) {
  const { storage, clock, metrics } = s.ctx
  return {
    log: storage.log,
    projects: await s.stores.projects(),
    clock,
    metrics,
    backpressure: await s.services.backpressure(),
    memory: await s.services.requestMemory(),
  }
}

export const ROUTE_GROUPS = {
  operations: group('delegated', operationsRoutes, async (s) => ({
    roles: s.ctx.roles.requested,
    log: s.ctx.storage.kafka ? ('kafka' as const) : ('embedded' as const),
    clickhouse: s.ctx.storage.clickhouse,
    metrics: s.ctx.metrics,
    readiness: s.ctx.config.readiness,
    stages: await Promise.all(
      STAGE_STREAMS.map(async (stream) => {
        const runsHere = s.ctx.roles.consumes(stream)
        const ingestion = runsHere && stream.stage === 'ingestion' ? await s.stages.ingestion() : null
        return {
          report: stream.lag.report,
          lag: await s.stages.lag(stream),
          runsHere,
          ...(ingestion ? { copies: () => ingestion.copiesWaiting() } : {}),
        }
      }),
    ),
    capture: s.ctx.roles.runs('capture')
      ? {
          backpressure: await s.services.backpressure(),
          recordingsBackpressure: await s.services.recordingsBackpressure(),
          config: s.ctx.config,
        }
      : null,
  })),
  // GET ?data= and OPTIONS of the capture paths; their POST, what the SDKs send, is capture-sdk.
  capture: group('delegated', captureQueryRoutes, captureDeps),
  // posthog-js's recordings (POST /s/, its preflight answered by the delegated scope): fixed open headers too.
  'recording-intake': group('open', recordingCaptureRoutes, async (s) => ({
    ...(await captureDeps(s)),
    recordingsBackpressure: await s.services.recordingsBackpressure(),
  })),
  projects: group('delegated', projectRoutes, async (s) => {
    const accounts = await s.stores.accounts()
    return { projects: await s.stores.projects(), siteUrl: s.ctx.config.siteUrl, organizationId: () => accounts.organization().id }
  }),
  annotations: group('delegated', annotationRoutes, async (s) => {
    const accounts = await s.stores.accounts()
    const [insights, dashboards] = [await s.stores.insights(), await s.stores.dashboards()]
    return {
      projects: await s.stores.projects(),
      annotations: await s.stores.annotations(),
      siteUrl: s.ctx.config.siteUrl,
      clock: s.ctx.clock,
      userBasic: (uuid: string) => {
        const user = accounts.user(uuid)
        return user ? userBasic(user) : null
      },
      callerUser: (caller: PersonalApiKey) => accounts.keyUser(caller)?.id ?? null,
      insights: (teamId: number, ids: number[]) => insights.list(teamId, { ids }),
      dashboards: (teamId: number, ids: number[]) => dashboards.list(teamId, { ids }),
    }
  }),
  experiments: group('delegated', experimentRoutes, async (s) => {
    const accounts = await s.stores.accounts()
    return {
      projects: await s.stores.projects(),
      experiments: await s.stores.experiments(),
      flags: await s.stores.flags(),
      cohorts: await s.stores.cohorts(),
      siteUrl: s.ctx.config.siteUrl,
      userBasic: (uuid: string) => {
        const user = accounts.user(uuid)
        return user ? userBasic(user) : null
      },
      callerUser: (caller: PersonalApiKey) => accounts.keyUser(caller)?.id ?? null,
    }
  }),
  surveys: group('delegated', surveyRoutes, async (s) => {
    const accounts = await s.stores.accounts()
    return {
      projects: await s.stores.projects(),
      surveys: await s.stores.surveys(),
      flags: surveyFlags(await s.stores.flags(), await s.stores.cohorts()),
      actions: await s.stores.actions(),
      clickhouse: s.ctx.storage.clickhouse,
      siteUrl: s.ctx.config.siteUrl,
      userBasic: (uuid: string) => {
        const user = accounts.user(uuid)
        return user ? userBasic(user) : null
      },
      callerUser: (caller: PersonalApiKey) => accounts.keyUser(caller)?.id ?? null,
    }
  }),
  accounts: group('delegated', accountRoutes, async (s) => ({
    accounts: await s.stores.accounts(),
    projects: await s.stores.projects(),
    clock: s.ctx.clock,
    siteUrl: s.ctx.config.siteUrl,
    trustedProxies: s.ctx.config.authFailures.trustedProxies,
  })),
  'dead-letters': group('delegated', deadLetterRoutes, async (s) => ({
    projects: await s.stores.projects(),
    store: await s.stores.deadLetters(),
    log: s.ctx.storage.log,
    metrics: s.ctx.metrics,
    siteUrl: s.ctx.config.siteUrl,
  })),
  events: group('delegated', eventRoutes, async (s) => ({
    projects: await s.stores.projects(),
    clickhouse: s.ctx.storage.clickhouse,
    siteUrl: s.ctx.config.siteUrl,
  })),
  definitions: group('delegated', definitionRoutes, async (s) => ({
    projects: await s.stores.projects(),
    queries: await s.stores.definitionQueries(),
    clock: s.ctx.clock,
    siteUrl: s.ctx.config.siteUrl,
  })),
  persons: group('delegated', personRoutes, async (s) => ({
    projects: await s.stores.projects(),
    queries: await s.stores.personQueries(),
    access: await s.stores.accessControls(),
    log: s.ctx.storage.log,
    processor: await s.stages.personCommands(),
    clock: s.ctx.clock,
    deletions: await s.jobs.deletions(),
    cohorts: await s.stores.cohorts(),
    siteUrl: s.ctx.config.siteUrl,
  })),
  actions: group('delegated', actionRoutes, async (s) => ({
    projects: await s.stores.projects(),
    actions: await s.stores.actions(),
    siteUrl: s.ctx.config.siteUrl,
  })),
  cohorts: group('delegated', cohortRoutes, async (s) => ({
    projects: await s.stores.projects(),
    cohorts: await s.stores.cohorts(),
    persons: await s.stores.personQueries(),
    clickhouse: s.ctx.storage.clickhouse,
    clock: s.ctx.clock,
    siteUrl: s.ctx.config.siteUrl,
  })),
  query: group('delegated', queryRoutes, async (s) => ({
    projects: await s.stores.projects(),
    runner: await s.services.queryRunner(),
    siteUrl: s.ctx.config.siteUrl,
  })),
  insights: group('delegated', insightRoutes, async (s) => ({
    projects: await s.stores.projects(),
    insights: await s.stores.insights(),
    dashboards: await s.stores.dashboards(),
    results: await s.services.insightResults(),
    tileConcurrency: s.ctx.config.dashboardConcurrency,
    siteUrl: s.ctx.config.siteUrl,
  })),
  flags: group('delegated', flagRoutes, async (s) => ({
    projects: await s.stores.projects(),
    flags: await s.stores.flags(),
    cohorts: await s.stores.cohorts(),
    snapshot: await s.services.personSnapshot(),
    siteUrl: s.ctx.config.siteUrl,
  })),
  'recording-snapshots': group('delegated', snapshotRoutes, async (s) => ({
    projects: await s.stores.projects(),
    blocks: await s.stores.snapshotBlocks(),
    sharing: await s.stores.sharing(),
    state: await s.stores.recordingState(),
    metadata: await s.stores.recordingMetadata(),
    clickhouse: s.ctx.storage.clickhouse,
  })),
  recordings: group('delegated', recordingRoutes, async (s) => ({
    projects: await s.stores.projects(),
    metadata: await s.stores.recordingMetadata(),
    persons: await s.stores.personQueries(),
    actions: await s.stores.actions(),
    cohorts: await s.stores.cohorts(),
    clickhouse: s.ctx.storage.clickhouse,
    clock: s.ctx.clock,
    sharing: await s.stores.sharing(),
    state: await s.stores.recordingState(),
    siteUrl: s.ctx.config.siteUrl,
  })),
  'recording-sharing': group('delegated', sharingRoutes, async (s) => ({
    projects: await s.stores.projects(),
    metadata: await s.stores.recordingMetadata(),
    sharing: await s.stores.sharing(),
    clickhouse: s.ctx.storage.clickhouse,
  })),
  'recording-ai': group('delegated', aiRoutes, async (s) => ({
    projects: await s.stores.projects(),
    model: s.services.chatModel(),
    clock: s.ctx.clock,
  })),
  player: group('delegated', playerRoutes, async (s) => ({ projects: await s.stores.projects() })),
  web: group('delegated', webRoutes, none),
  // What posthog-js and PostHog's HTML snippet load from the API host, wherever SDK traffic is served.
  static: group('delegated', staticRoutes, none),
  'flags-public': group('delegated', publicFlagRoutes, flagAnswerDeps),
  // The SDKs' flag requests: fixed open CORS headers, without the delegator's work on every request.
  'flags-sdk': group('open', flagAnswerRoutes, flagAnswerDeps),
  // The SDKs' events (POST of every capture path): the same fixed open headers.
  'capture-sdk': group('open', captureRoutes, captureDeps),
} satisfies Record<RouteGroupName, RouteGroup>

/** Mounts the route groups of the process's roles on the server, each in its CORS scope. */
export async function mountRouteGroups(
  server: { mount(scopes: Record<CorsScope, Array<(scope: FastifyInstance) => Promise<void>>>): Promise<void> },
  parts: Parts,
): Promise<void> {
  const scopes: Record<CorsScope, Array<(scope: FastifyInstance) => Promise<void>>> = { delegated: [], open: [] }
  for (const name of parts.ctx.roles.routeGroups()) {
    const row: RouteGroup = ROUTE_GROUPS[name]
    scopes[row.cors].push((scope) => row.mount(scope, parts))
  }
  await server.mount(scopes)
}
