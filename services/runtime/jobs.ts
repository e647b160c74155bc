// The background jobs of the role table (roles.ts JobName), each built on first use (build-once.ts) and
// started by the process whose roles run it; the routes that use one (persons: deletions; trends: the
// materializer) are handed the same object.
import { PropertyMaterializer } from '../analytics/sql/materialized-properties'
import { DeletionScheduler } from '../persons/deletions'
import { PersonCompaction } from '../ingestion/persons/compaction'
import { HomeDashboards } from '../insights/home'
import { SurveyResponseLimits } from '../surveys/response-limits'
import { BuildOnce, type RuntimeContext } from './build-once'
import type { JobName } from './roles'
import type { Stores } from './stores'

export class Jobs extends BuildOnce implements Record<JobName, () => Promise<{ start(): unknown }>> {
  constructor(
    ctx: RuntimeContext,
    private readonly stores: Stores,
  ) {
    super(ctx)
  }

  deletions(): Promise<DeletionScheduler> {
    return this.once('deletions', () =>
      this.ctx.lifecycle.started(
        'deletions',
        new DeletionScheduler(this.ctx.storage.clickhouse, this.ctx.clock, this.child('deletions')),
        (d) => d.stop(),
      ),
    )
  }

  /** Folds the person versions of committed batches (every WREN_PERSON_COMPACTION_MS). */
  personCompaction(): Promise<PersonCompaction> {
    return this.once('person compaction', () =>
      this.ctx.lifecycle.started(
        'person compaction',
        new PersonCompaction(
          this.ctx.storage.clickhouse,
          this.ctx.storage.log,
          this.child('person-compaction'),
          this.ctx.metrics,
          this.ctx.config.ingestion.compactionMs,
        ),
        (c) => c.stop(),
      ),
    )
  }

  /** Event properties the trends keep reading from the JSON get columns of their own. */
  materializer(): Promise<PropertyMaterializer> {
    return this.once('materializer', () =>
      this.ctx.lifecycle.started(
        'materializer',
        new PropertyMaterializer(this.ctx.storage.clickhouse, this.child('materializer'), { cluster: this.cluster }),
        (m) => m.stop(),
      ),
    )
  }

  /** Every project's home dashboard, the one the app opens on. */
  homeDashboards(): Promise<HomeDashboards> {
    return this.once('home dashboards', async () => {
      const [projects, insights, dashboards] = await Promise.all([this.stores.projects(), this.stores.insights(), this.stores.dashboards()])
      return this.ctx.lifecycle.started('home dashboards', new HomeDashboards(projects, { insights, dashboards }), (h) => h.stop())
    })
  }

  /** Surveys stopped once their responses reach responses_limit. */
  surveyResponseLimits(): Promise<SurveyResponseLimits> {
    return this.once('survey response limits', async () =>
      this.ctx.lifecycle.started(
        'survey response limits',
        new SurveyResponseLimits(await this.stores.surveys(), this.ctx.storage.clickhouse, this.ctx.clock, this.child('surveys')),
        (l) => l.stop(),
      ),
    )
  }
}
