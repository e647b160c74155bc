// What the insight and dashboard routes are handed (runtime/route-groups.ts builds it).
import type { Tenants } from '../platform/tenancy'
import type { DashboardStore } from './dashboard-store'
import type { InsightResults } from './results'
import type { InsightStore } from './store'

export interface InsightDeps {
  projects: Tenants
  insights: InsightStore
  dashboards: DashboardStore
  results: InsightResults
  /** Tiles of one dashboard computed at once (WREN_DASHBOARD_CONCURRENCY). */
  tileConcurrency: number
  /** The public URL the list pages' `next` and `previous` links are made of (WREN_SITE_URL); the request's host without it. */
  siteUrl: string | null
}
