// Annotations: configuration objects (platform/config-objects.ts). Nothing of another process caches them, so
// a write tells no one.
import type { ClickHouseClient } from '../platform/clickhouse'
import { ConfigObjectStore, timestamp, type ConfigObjectKind } from '../platform/config-objects'
import type { Clock } from '../platform/clock'
import type { ConfigLog } from '../platform/log/config-log'

/** PostHog's Annotation.Scope: where an annotation shows. */
export const ANNOTATION_SCOPES = ['dashboard_item', 'dashboard', 'project', 'organization', 'recording'] as const
export type AnnotationScope = (typeof ANNOTATION_SCOPES)[number]

export interface Annotation {
  id: number
  teamId: number
  content: string
  /** ISO instant the annotation marks. */
  dateMarker: string
  scope: AnnotationScope
  /** The insight a `dashboard_item` annotation belongs to. */
  dashboardItem: number | null
  /** The dashboard a `dashboard` annotation belongs to. */
  dashboardId: number | null
  /** PostHog's creation types: USR (a person), GIT (a deploy tool). */
  creationType: 'USR' | 'GIT'
  /** The user's uuid ('' for a key without a user). */
  createdBy: string
  createdAt: string
  updatedAt: string
  deleted: boolean
  version: number
}

export type AnnotationFields = Pick<
  Annotation,
  'content' | 'dateMarker' | 'scope' | 'dashboardItem' | 'dashboardId' | 'creationType' | 'createdBy'
>

const ANNOTATIONS: ConfigObjectKind<Annotation, AnnotationFields> = {
  table: 'annotations',
  object: 'annotation',
  columns: ['content', 'date_marker', 'scope', 'dashboard_item', 'dashboard_id', 'creation_type', 'created_by', 'updated_at'],
  create: (fields, now) => ({ ...fields, updatedAt: now }),
  touch: (annotation, _current, now) => ({ ...annotation, updatedAt: now }),
  toRow: (a) => ({
    content: a.content,
    date_marker: a.dateMarker,
    scope: a.scope,
    dashboard_item: a.dashboardItem ?? 0,
    dashboard_id: a.dashboardId ?? 0,
    creation_type: a.creationType,
    created_by: a.createdBy,
    updated_at: a.updatedAt,
  }),
  fromRow: (r) => ({
    content: r.content as string,
    dateMarker: timestamp(r.date_marker),
    scope: r.scope as AnnotationScope,
    dashboardItem: Number(r.dashboard_item) || null,
    dashboardId: Number(r.dashboard_id) || null,
    creationType: r.creation_type === 'GIT' ? 'GIT' : 'USR',
    createdBy: r.created_by as string,
    updatedAt: timestamp(r.updated_at),
  }),
}

export class AnnotationStore extends ConfigObjectStore<Annotation, AnnotationFields> {
  constructor(client: ClickHouseClient, clock: Clock, config: ConfigLog) {
    super(client, clock, config, ANNOTATIONS)
  }
}
