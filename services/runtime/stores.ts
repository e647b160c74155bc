// The storage-backed stores: what reads and writes ClickHouse tables and the configuration log (and the
// GeoIP database on disk), each built on first use (build-once.ts). The log's readers are stages.ts; what
// the routes are handed beyond the stores is services.ts; the background jobs are jobs.ts.
import { systemClock } from '../platform/clock'
import { AccessControls } from '../platform/http/access-controls'
import { ClusterConfigLog, LocalConfigLog, type ConfigLog } from '../platform/log/config-log'
import { openGeoIpReader, type CityLookup } from '../platform/geoip'
import { capturesConsoleLogs } from '../analytics/project-settings'
import { ProjectStore } from '../projects/store'
import { AccountStore } from '../accounts/store'
import { AnnotationStore } from '../annotations/store'
import { ExperimentStore } from '../experiments/store'
import { SurveyStore } from '../surveys/store'
import { DeadLetterStore, kafkaDeadLetterFeed } from '../dead-letters/store'
import { PersonQueries } from '../persons/queries'
import { DefinitionQueries } from '../definitions/queries'
import { ActionStore } from '../actions/store'
import { CohortStore } from '../cohorts/store'
import { InsightStore } from '../insights/store'
import { DashboardStore } from '../insights/dashboard-store'
import { FlagStore } from '../flags/store'
import { ClickHouseBlockStore } from '../recordings/blocks'
import { ClickHouseMetadataStore } from '../recordings/metadata-store'
import { projectRetention } from '../recordings/retention'
import { SharingStore } from '../recordings/sharing-store'
import { RecordingStateStore } from '../recordings/recording-state'
import { BuildOnce } from './build-once'

export class Stores extends BuildOnce {
  /**
   * The GeoIP database for $geoip_* on events and flags. One the user names (WREN_GEOIP_DATABASE) must open:
   * events ingested without their location cannot get it later, so a wrong path stops the start. Without
   * it, the bundled database is used if it is there; if not, Wren runs without GeoIP and says so.
   */
  geoip(): Promise<CityLookup | null> {
    return this.once('geoip', async () => {
      if (this.ctx.config.geoipDatabase) return openGeoIpReader(this.ctx.config.geoipDatabase)
      try {
        return await openGeoIpReader(null)
      } catch (err) {
        this.ctx.logger.warn({ err }, 'GeoIP database unavailable: no $geoip_* on events, and on flags only from person_properties')
        return null
      }
    })
  }

  /**
   * Configuration changes and new ids (config/config-log.ts): in memory in embedded mode; on the log in
   * cluster mode, where the api processes hand out ids and every process keeps its copy from the log.
   */
  configLog(): Promise<ConfigLog> {
    return this.once('config log', () => {
      const { clickhouse, log, kafka } = this.ctx.storage
      const configLog = kafka
        ? new ClusterConfigLog(log, clickhouse, this.child('config'), { allocate: this.ctx.roles.runs('api') })
        : new LocalConfigLog(clickhouse, this.child('config'))
      return this.ctx.lifecycle.started('config log', configLog, (c) => c.stop())
    })
  }

  /** Projects and keys; keys act within their users' roles, and sessions are let in (accounts). */
  projects(): Promise<ProjectStore> {
    return this.once('projects', async () => {
      const projects = await ProjectStore.load(this.ctx.storage.clickhouse, this.ctx.clock, await this.configLog())
      projects.attachAccounts(await this.accounts())
      return this.ctx.lifecycle.started('projects', projects, (p) => p.close())
    })
  }

  /** The organization, its users, invitations and sessions. */
  accounts(): Promise<AccountStore> {
    return this.once('accounts', async () =>
      AccountStore.load(this.ctx.storage.clickhouse, this.ctx.clock, await this.configLog(), Boolean(this.ctx.storage.kafka)),
    )
  }

  /**
   * Dead letters are kept in ClickHouse in both modes (wall-clock times: they are operations, not events);
   * cluster mode also feeds them to the Kafka dead-letter topic.
   */
  deadLetters(): Promise<DeadLetterStore> {
    const { clickhouse, kafka } = this.ctx.storage
    return this.once('dead letters', () => new DeadLetterStore(clickhouse, systemClock, kafka ? kafkaDeadLetterFeed(kafka) : undefined))
  }

  /** Each project's recording retention: stored on every row (ClickHouse's TTL drops it) and applied by readers. */
  private async recordingRetention() {
    return this.once('recording retention', async () => projectRetention(await this.projects(), this.ctx.clock))
  }

  snapshotBlocks(): Promise<ClickHouseBlockStore> {
    return this.once('snapshot blocks', async () => new ClickHouseBlockStore(this.ctx.storage.clickhouse, await this.recordingRetention()))
  }

  recordingMetadata(): Promise<ClickHouseMetadataStore> {
    return this.once('recording metadata', async () => {
      const projects = await this.projects()
      return new ClickHouseMetadataStore(
        this.ctx.storage.clickhouse,
        (teamId) => capturesConsoleLogs(projects.byId(teamId)?.settings ?? {}),
        await this.recordingRetention(),
      )
    })
  }

  /** Recordings' sharing configurations: the failure limit and the routes that take sharing tokens check them. */
  sharing(): Promise<SharingStore> {
    return this.once('sharing', async () => new SharingStore(this.ctx.storage.clickhouse, this.ctx.clock, await this.configLog()))
  }

  recordingState(): Promise<RecordingStateStore> {
    return this.once('recording state', () => new RecordingStateStore(this.ctx.storage.clickhouse, this.ctx.clock, this.cluster))
  }

  personQueries(): Promise<PersonQueries> {
    return this.once('person queries', () => new PersonQueries(this.ctx.storage.clickhouse))
  }

  definitionQueries(): Promise<DefinitionQueries> {
    return this.once('definition queries', () => new DefinitionQueries(this.ctx.storage.clickhouse))
  }

  accessControls(): Promise<AccessControls> {
    return this.once('access controls', () => new AccessControls(this.ctx.storage.clickhouse, this.ctx.clock))
  }

  // Definitions: every store hears the others' writes through the configuration log, not by polling.

  actions(): Promise<ActionStore> {
    return this.once('actions', async () => new ActionStore(this.ctx.storage.clickhouse, this.ctx.clock, await this.configLog()))
  }

  cohorts(): Promise<CohortStore> {
    return this.once('cohorts', async () => new CohortStore(this.ctx.storage.clickhouse, this.ctx.clock, await this.configLog()))
  }

  insights(): Promise<InsightStore> {
    return this.once('insights', async () => new InsightStore(this.ctx.storage.clickhouse, this.ctx.clock, await this.configLog()))
  }

  dashboards(): Promise<DashboardStore> {
    return this.once('dashboards', async () => new DashboardStore(this.ctx.storage.clickhouse, this.ctx.clock, await this.configLog()))
  }

  annotations(): Promise<AnnotationStore> {
    return this.once('annotations', async () => new AnnotationStore(this.ctx.storage.clickhouse, this.ctx.clock, await this.configLog()))
  }

  experiments(): Promise<ExperimentStore> {
    return this.once('experiments', async () => new ExperimentStore(this.ctx.storage.clickhouse, this.ctx.clock, await this.configLog()))
  }

  surveys(): Promise<SurveyStore> {
    return this.once('surveys', async () => new SurveyStore(this.ctx.storage.clickhouse, this.ctx.clock, await this.configLog()))
  }

  flags(): Promise<FlagStore> {
    return this.once('flags', async () => FlagStore.load(this.ctx.storage.clickhouse, this.ctx.clock, await this.configLog()))
  }
}
