// The configuration-object store (config-objects.ts) in memory, for unit tests of what reads or writes
// actions, cohorts, insights or dashboards. It keeps the real store's rules: ids count up per store, every
// change is a new version with its modification time set, reads answer copies in id order, and deleted
// objects show only when asked for.
import type { ConfigObject, ConfigObjectKind, ConfigObjects, ListOptions } from '../config-objects'
import type { Clock } from '../clock'

export class FakeConfigObjects<T extends ConfigObject, F extends Partial<T>, C = F> implements ConfigObjects<T, F, C> {
  private readonly objects = new Map<number, T>()
  private lastId = 0

  constructor(
    private readonly kind: Pick<ConfigObjectKind<T, F, C>, 'create' | 'touch'>,
    private readonly clock: Clock,
  ) {}

  async list(teamId: number, opts: ListOptions = {}): Promise<T[]> {
    return [...this.objects.values()]
      .filter((o) => o.teamId === teamId && (opts.includeDeleted || !o.deleted) && (!opts.ids || opts.ids.includes(o.id)))
      .sort((a, b) => a.id - b.id)
      .map((o) => structuredClone(o))
  }

  async get(teamId: number, id: number, opts: { includeDeleted?: boolean } = {}): Promise<T | undefined> {
    return (await this.list(teamId, { ...opts, ids: [id] }))[0]
  }

  async create(teamId: number, fields: C): Promise<T> {
    const now = this.clock.now().toISOString()
    const object = { ...this.kind.create(fields, now), id: ++this.lastId, teamId, createdAt: now, deleted: false, version: 1 } as T
    this.objects.set(object.id, structuredClone(object))
    return object
  }

  async update(teamId: number, id: number, change: (current: T) => Partial<F> & { deleted?: boolean }): Promise<T | undefined> {
    const current = await this.get(teamId, id, { includeDeleted: true })
    if (!current) return undefined
    const next = {
      ...this.kind.touch({ ...current, ...change(current) }, current, this.clock.now().toISOString()),
      version: current.version + 1,
    }
    this.objects.set(id, structuredClone(next))
    return next
  }
}
