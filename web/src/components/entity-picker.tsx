// An event or an action, picked: event or action, then the event's name (with the project's event names offered)
// or one of the project's actions. The lifecycle, stickiness and retention editors' series and entities.
import { DefinitionOptions } from './definitions'
import type { NamedThing } from './insight-controls'
import type { Entity } from '../kind-state'

/** `label`: what the controls are named for ("Series A", "Returning"): their aria-labels start with it. */
export function EntityPicker({
  label,
  entity,
  actions,
  onChange,
}: {
  label: string
  entity: Entity
  actions: NamedThing[]
  onChange: (entity: Entity) => void
}) {
  const listId = `entity-events-${label.replace(/\W+/g, '-')}`
  return (
    <span class="entity-picker inline">
      <select
        aria-label={`${label} kind`}
        value={entity.kind}
        onChange={(e) => {
          const kind = e.currentTarget.value as Entity['kind']
          if (kind !== entity.kind) onChange({ kind, id: '' })
        }}
      >
        <option value="events">Event</option>
        <option value="actions">Action</option>
      </select>
      {entity.kind === 'events' ? (
        <>
          <input
            aria-label={`${label} event`}
            list={listId}
            placeholder="event name, e.g. $pageview"
            value={entity.id}
            onInput={(e) => onChange({ kind: 'events', id: e.currentTarget.value })}
          />
          <DefinitionOptions id={listId} kind="event" search={entity.id} />
        </>
      ) : (
        <select aria-label={`${label} action`} value={entity.id} onChange={(e) => onChange({ kind: 'actions', id: e.currentTarget.value })}>
          <option value="">Choose an action…</option>
          {actions.map((a) => (
            <option value={String(a.id)} selected={String(a.id) === entity.id}>
              {a.name ?? `Action ${a.id}`}
            </option>
          ))}
        </select>
      )}
    </span>
  )
}
