// Actions: configuration objects (platform/config-objects.ts). A write tells every process which action
// changed.
import type { ClickHouseClient } from '../platform/clickhouse'
import { ConfigObjectStore, timestamp, type ConfigObjectKind } from '../platform/config-objects'
import type { Clock } from '../platform/clock'
import type { ConfigLog } from '../platform/log/config-log'

export interface ActionStep {
  event?: string | null
  url?: string | null
  url_matching?: 'contains' | 'exact' | 'regex' | null
  text?: string | null
  text_matching?: 'contains' | 'exact' | 'regex' | null
  href?: string | null
  href_matching?: 'contains' | 'exact' | 'regex' | null
  selector?: string | null
  tag_name?: string | null
  properties?: unknown[] | null
}

export interface Action {
  id: number
  teamId: number
  name: string
  description: string
  steps: ActionStep[]
  tags: string[]
  createdAt: string
  updatedAt: string
  deleted: boolean
  version: number
}

export type ActionFields = Pick<Action, 'name' | 'description' | 'steps' | 'tags'>

export const ACTIONS: ConfigObjectKind<Action, ActionFields> = {
  table: 'actions',
  object: 'action',
  columns: ['name', 'description', 'steps', 'tags', 'updated_at'],
  create: (fields, now) => ({ ...fields, updatedAt: now }),
  touch: (action, _current, now) => ({ ...action, updatedAt: now }),
  toRow: (a) => ({
    name: a.name,
    description: a.description,
    steps: JSON.stringify(a.steps),
    tags: a.tags,
    updated_at: a.updatedAt,
  }),
  fromRow: (r) => ({
    name: r.name as string,
    description: r.description as string,
    steps: JSON.parse((r.steps as string) || '[]') as ActionStep[],
    tags: r.tags as string[],
    updatedAt: timestamp(r.updated_at),
  }),
  published: (a) => ({ kind: 'action', teamId: a.teamId, id: a.id }),
}

export class ActionStore extends ConfigObjectStore<Action, ActionFields> {
  constructor(client: ClickHouseClient, clock: Clock, config: ConfigLog) {
    super(client, clock, config, ACTIONS)
  }
}
