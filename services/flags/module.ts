// Builds the flags service and registers its routes: what the composition root calls. The cohort
// reader is handed in (issue 4's service); until then NO_COHORTS, and cohort conditions fail visibly.
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { ClickHouseClient } from '../shared/clickhouse'
import type { Clock } from '../shared/clock'
import type { ProjectStore } from '../projects/store'
import type { SnapshotChanges } from '../ingestion/person-feed'
import type { Metrics } from '../shared/metrics'
import { FlagStore } from './store'
import { PersonSnapshot } from './snapshot'
import { FlagsService } from './service'
import { openGeoIp, type GeoLookup } from './geoip'
import { flagRoutes } from './routes'
import { publicFlagRoutes } from './public-routes'
import { NO_COHORTS, type CohortReader } from './types'
import type { CohortStore } from '../cohorts/store'
import type { ConfigLog } from '../config/config-log'

export interface FlagsModuleDeps {
  clickhouse: ClickHouseClient
  clock: Clock
  config: ConfigLog
  projects: ProjectStore
  /** Hands the snapshot's apply to whatever hears stored person changes (the processor, or the log's feed). */
  personChanges: (apply: (changes: SnapshotChanges) => void) => void
  metrics: Metrics
  logger: Logger
  siteUrl: string | null
  cohorts?: CohortReader
  /** Stored cohorts, to refuse a flag that names a cohort of another project. */
  cohortStore: Pick<CohortStore, 'list'>
}

export interface FlagsModule {
  flags: FlagStore
  snapshot: PersonSnapshot
  service: FlagsService
  /** Registers the management routes (`api`) and/or the public decide routes (`decide`). */
  register(app: FastifyInstance, parts: { api: boolean; decide: boolean }): Promise<void>
}

export async function buildFlags(deps: FlagsModuleDeps): Promise<FlagsModule> {
  const cohorts = deps.cohorts ?? NO_COHORTS
  const flags = await FlagStore.load(deps.clickhouse, deps.clock, deps.config)
  const snapshot = new PersonSnapshot(deps.clickhouse)
  await snapshot.loadGroupTypes()
  deps.personChanges((changes) => snapshot.apply(changes))
  let geoip: GeoLookup | null = null
  try {
    geoip = await openGeoIp()
  } catch (err) {
    deps.logger.warn({ err }, 'GeoIP database unavailable: $geoip_* flag properties come only from person_properties')
  }
  const service = new FlagsService(flags, snapshot, cohorts, deps.clock, geoip)
  return {
    flags,
    snapshot,
    service,
    async register(app, parts) {
      if (parts.api) await app.register(flagRoutes, { projects: deps.projects, flags, cohorts: deps.cohortStore, snapshot, siteUrl: deps.siteUrl })
      if (parts.decide) await app.register(publicFlagRoutes, { projects: deps.projects, service, snapshot, cohorts, clock: deps.clock, metrics: deps.metrics })
    },
  }
}
