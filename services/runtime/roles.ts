// What each role runs, as one table: the route groups it serves and the jobs it runs. The streams it
// consumes come from the stream table (streams.ts), which names each stream's consumers. `wren start` (and
// `wren all`) runs every role in one process; cluster mode runs any number of processes of each.
import type { Config, Role } from '../platform/config'
import { STREAMS, type StreamName } from '../platform/log/streams'

export type RoleName = Exclude<Role, 'all'>

/** The route groups (route-groups.ts has each one's plugin and dependencies), in the order they are mounted. */
export const ROUTE_GROUP_NAMES = [
  'operations',
  'capture',
  'recording-intake',
  'projects',
  'accounts',
  'annotations',
  'experiments',
  'surveys',
  'dead-letters',
  'events',
  'definitions',
  'persons',
  'actions',
  'cohorts',
  'query',
  'insights',
  'flags',
  'recording-snapshots',
  'recordings',
  'recording-sharing',
  'recording-ai',
  'player',
  'web',
  'static',
  'flags-public',
  'flags-sdk',
  'capture-sdk',
] as const

export type RouteGroupName = (typeof ROUTE_GROUP_NAMES)[number]

export interface RoleRow {
  does: string
  routes: RouteGroupName[]
  jobs: JobName[]
}

export type JobName = 'deletions' | 'personCompaction' | 'materializer' | 'homeDashboards' | 'surveyResponseLimits'

export const JOB_DOCS: Record<JobName, string> = {
  deletions: 'deletes the events of deleted persons in the background (persons/deletions.ts)',
  personCompaction:
    'folds the person, distinct-id and group versions of committed batches into one row each, so their storage stays flat (ingestion/persons/compaction.ts)',
  materializer: 'gives event properties that trends read often a column of their own (analytics/sql/materialized-properties.ts)',
  homeDashboards: 'gives every project a home dashboard, the one the app opens on (insights/home.ts)',
  surveyResponseLimits: 'stops the surveys whose responses have reached their responses_limit, every minute (surveys/response-limits.ts)',
}

export const ROLE_TABLE: Record<RoleName, RoleRow> = {
  capture: {
    does: 'the SDKs’ intake: events, person updates and session recordings, appended to the log',
    routes: ['operations', 'capture', 'recording-intake', 'static', 'capture-sdk'],
    jobs: [],
  },
  ingest: {
    does: 'the ingestion processor: persons and events into ClickHouse; the one writer of persons',
    routes: ['operations'],
    jobs: ['deletions', 'personCompaction'],
  },
  api: {
    does: 'the management API and the web app',
    routes: [
      'operations',
      'projects',
      'accounts',
      'annotations',
      'experiments',
      'surveys',
      'dead-letters',
      'events',
      'definitions',
      'persons',
      'actions',
      'cohorts',
      'query',
      'insights',
      'flags',
      'recording-snapshots',
      'recordings',
      'recording-sharing',
      'recording-ai',
      'player',
      'web',
    ],
    jobs: ['materializer', 'homeDashboards', 'surveyResponseLimits'],
  },
  decide: {
    does: 'feature flags and remote config for the SDKs, from the in-memory snapshot',
    routes: ['operations', 'static', 'flags-public', 'flags-sdk'],
    jobs: [],
  },
  recordings: {
    does: 'the recordings processor: snapshots into blocks and metadata in ClickHouse',
    routes: ['operations'],
    jobs: [],
  },
}

export const ROLE_NAMES = Object.keys(ROLE_TABLE) as RoleName[]

/** The roles one process runs. */
export class Roles {
  readonly names: RoleName[]

  constructor(readonly requested: Role[]) {
    this.names = requested.includes('all') ? ROLE_NAMES : ROLE_NAMES.filter((r) => requested.includes(r))
  }

  static of(config: Pick<Config, 'roles' | 'kafka'>): Roles {
    const roles = new Roles(config.roles ?? ['all'])
    if (!roles.requested.includes('all') && !config.kafka)
      throw new Error(
        `wren ${roles.requested.join(',')} is a cluster-mode role and needs KAFKA_BROKERS; embedded mode runs every service in one process: wren start`,
      )
    return roles
  }

  runs(role: RoleName): boolean {
    return this.names.includes(role)
  }

  /** True when one of this process's roles consumes `stream` (and so runs its stage, if it has one). */
  consumes(stream: { consumers: readonly RoleName[] }): boolean {
    return stream.consumers.some((role) => this.runs(role))
  }

  /** The route groups to mount, each once, in mounting order. */
  routeGroups(): RouteGroupName[] {
    const wanted = new Set(this.names.flatMap((r) => ROLE_TABLE[r].routes))
    return ROUTE_GROUP_NAMES.filter((g) => wanted.has(g))
  }

  jobs(): JobName[] {
    return [...new Set(this.names.flatMap((r) => ROLE_TABLE[r].jobs))]
  }

  /** The streams this process consumes (cluster-only streams only with the Kafka log). */
  streams(mode: 'embedded' | 'cluster'): StreamName[] {
    return STREAMS.filter((s) => (mode === 'cluster' || s.modes === 'both') && this.consumes(s)).map((s) => s.name)
  }
}
