// The stop order, as one table: every step a process registers on its lifecycle (lifecycle.ts), in the order
// they stop. The lifecycle stops the steps a process registered in this order, whatever order they were built
// in, so the table is what stops things; `wren roles` prints each role's part of it (describe.ts). Each step
// stops before the steps below it that it was built on: the server stops taking requests before anything
// they use stops, the feeds, jobs and stages before the log and ClickHouse they read and write, what reads
// configuration before the configuration log, and the log before ClickHouse (the processors are stopped by then).
import { STREAMS, type StreamName } from '../platform/log/streams'
import type { JobName, RouteGroupName, Roles } from './roles'

export type Mode = 'embedded' | 'cluster'

interface StopRow {
  name: string
  /** What stopping it does. */
  stops: string
  /** Whether a process of these roles in this mode builds it; a string: only under that condition. */
  builtBy: (roles: Roles, mode: Mode) => boolean | string
}

const consumes = (roles: Roles, name: StreamName) => roles.consumes(STREAMS.find((s) => s.name === name)!)
const serves = (roles: Roles, ...groups: RouteGroupName[]) => roles.routeGroups().some((g) => groups.includes(g))
const runsJob = (roles: Roles, job: JobName) => roles.jobs().includes(job)
const always = () => true

export const STOP_ORDER = [
  {
    name: 'http server',
    stops: 'stops accepting requests; those in flight get the grace period (WREN_SHUTDOWN_GRACE_MS), then open connections are closed',
    builtBy: always,
  },
  {
    name: 'person feed',
    stops: "stops reading the person-changes topic (decide's snapshot)",
    builtBy: (roles, mode) => mode === 'cluster' && consumes(roles, 'person-changes'),
  },
  { name: 'cohort reader', stops: "stops refreshing decide's cohorts", builtBy: (roles) => serves(roles, 'flags-public', 'flags-sdk') },
  {
    name: 'command results',
    stops: 'stops reading the command-results topic (the persons API’s waits)',
    builtBy: (roles, mode) => mode === 'cluster' && consumes(roles, 'command-results') && !roles.runs('ingest'),
  },
  {
    name: 'home dashboards',
    stops: 'nothing to stop: a project’s home dashboard is made before its creation is answered',
    builtBy: (roles) => runsJob(roles, 'homeDashboards'),
  },
  {
    name: 'survey response limits',
    stops: 'lets a running check of the surveys’ response limits finish, and starts no other',
    builtBy: (roles) => runsJob(roles, 'surveyResponseLimits'),
  },
  {
    name: 'query jobs',
    stops: 'cancels the running asynchronous Query API queries (their ClickHouse queries are killed); their statuses are forgotten',
    builtBy: (roles) => serves(roles, 'query', 'insights'),
  },
  {
    name: 'materializer',
    stops: 'lets a running column backfill finish, and starts no other',
    builtBy: (roles) => runsJob(roles, 'materializer') || serves(roles, 'query', 'insights'),
  },
  {
    name: 'deletions',
    stops: 'schedules no more deletions (queued ones run after the next start)',
    builtBy: (roles) => runsJob(roles, 'deletions') || serves(roles, 'persons'),
  },
  {
    name: 'person compaction',
    stops: 'lets a running compaction finish, and starts no other',
    builtBy: (roles) => runsJob(roles, 'personCompaction'),
  },
  {
    name: 'recordings',
    stops: 'the recordings stage takes no more batches (one not yet committed is replayed after the next start)',
    builtBy: (roles) => consumes(roles, 'snapshots'),
  },
  {
    name: 'ingestion',
    stops:
      'the ingestion stage takes no more batches (one not yet committed is replayed after the next start), then its person-work thread ends',
    builtBy: (roles) => consumes(roles, 'events'),
  },
  { name: 'lag snapshots', stops: "stops sampling the recordings stage's lag", builtBy: always },
  { name: 'lag events', stops: "stops sampling the ingestion stage's lag", builtBy: always },
  { name: 'projects', stops: "writes the projects' last usage figures", builtBy: always },
  { name: 'config log', stops: 'stops reading the configuration topic (cluster mode)', builtBy: always },
  { name: 'log', stops: 'closes the log: the embedded log’s files, or the Kafka client’s connections', builtBy: always },
  { name: 'clickhouse', stops: 'waits for the calls in flight, then closes chDB or the connection', builtBy: always },
  {
    name: 'data directory lock',
    stops: 'unlocks the data directory',
    builtBy: (_roles, mode) => mode === 'embedded' || 'with chDB or the embedded log',
  },
] as const satisfies readonly StopRow[]

export type StopStep = (typeof STOP_ORDER)[number]['name']

/** A process's stop steps, in the order it stops them; a conditional step with its condition. */
export function stopOrder(roles: Roles, mode: Mode): Array<{ name: StopStep; when?: string }> {
  return STOP_ORDER.flatMap((row: StopRow & { name: StopStep }) => {
    const built = row.builtBy(roles, mode)
    return built === false ? [] : [{ name: row.name, ...(typeof built === 'string' ? { when: built } : {}) }]
  })
}
