// Actions: named sets of events (each step an event, optionally its URL and properties) that trends can
// count as a series; list, create, edit and delete.
import { useState } from 'preact/hooks'
import { get, WHOLE_LIST, withQuery } from '../api'
import type { Action, Paginated, Step } from '../answers'
import { ItemPage, NameFields, saveItem, softDelete } from '../components/editor'
import { Empty, ErrorBox } from '../components/feedback'
import { EditorHeader, ListHeader } from '../components/headers'
import { Listing } from '../components/listing'
import { useAction, useLoad } from '../components/load'
import { completeFilters, PropertyFilters } from '../components/property-filters'
import { useSession } from '../session'

export function ActionsPage() {
  const { path, base, can } = useSession()
  const actions = useLoad(() => get<Paginated<Action>>(withQuery(path('actions/'), { limit: WHOLE_LIST })), [])
  return (
    <div>
      <ListHeader title="Actions" create={can('action:write') ? { href: `${base}/actions/new`, label: 'New action' } : null} />
      <Listing
        loaded={actions}
        empty={
          <Empty title="No actions yet.">
            <p>
              An action names the events that mean one thing to you (say, “Signed up”: a $pageview of /welcome or a signup event); trends
              can then count it.
            </p>
          </Empty>
        }
        head={
          <>
            <th>Name</th>
            <th>Matches</th>
          </>
        }
        row={(a) => (
          <tr>
            <td>
              <a href={`${base}/actions/${a.id}`}>{a.name}</a>
            </td>
            <td class="truncate">{a.steps.map((s) => [s.event ?? 'any event', s.url ? `at ${s.url}` : ''].join(' ')).join(' or ')}</td>
          </tr>
        )}
      />
    </div>
  )
}

export function ActionPage({ id }: { id: string }) {
  const { path } = useSession()
  return <ItemPage<Action> id={id} url={(id) => path(`actions/${id}/`)} editor={(action) => <ActionEditor action={action} />} />
}

function ActionEditor({ action }: { action: Action | null }) {
  const { path, base, can } = useSession()
  const [name, setName] = useState(action?.name ?? '')
  const [description, setDescription] = useState(action?.description ?? '')
  const [steps, setSteps] = useState<Step[]>(action?.steps.length ? action.steps : [{ event: '$pageview', properties: [] }])
  const [error, busy, run] = useAction()
  const setStep = (i: number, patchStep: Partial<Step>) => setSteps(steps.map((s, j) => (j === i ? { ...s, ...patchStep } : s)))
  const save = (event: Event) => {
    event.preventDefault()
    run(async () => {
      const body = {
        name,
        description,
        steps: steps.map((s) => ({
          event: s.event?.trim() || null,
          ...(s.url?.trim() ? { url: s.url.trim(), url_matching: s.url_matching ?? 'contains' } : {}),
          properties: completeFilters(s.properties ?? []),
        })),
      }
      await saveItem(path('actions/'), action?.id ?? null, body, `${base}/actions`)
    })
  }
  return (
    <form onSubmit={save}>
      <EditorHeader
        title={action ? `Action ${action.name}` : 'New action'}
        busy={busy}
        onDelete={
          action && can('action:write')
            ? softDelete(run, `Delete the action ${action.name}?`, path(`actions/${action.id}/`), `${base}/actions`)
            : null
        }
      />
      <ErrorBox error={error} />
      <section class="card grid">
        <NameFields name={name} description={description} onName={setName} onDescription={setDescription} />
      </section>
      {steps.map((s, i) => (
        <section class="card step" key={i}>
          <div class="inline">
            <strong>{i === 0 ? 'Match' : 'or match'}</strong>
            <input
              aria-label={`Step ${i + 1} event`}
              placeholder="event (blank: any)"
              value={s.event ?? ''}
              onInput={(e) => setStep(i, { event: e.currentTarget.value })}
            />
            <select
              aria-label={`Step ${i + 1} URL matching`}
              value={s.url_matching ?? 'contains'}
              onChange={(e) => setStep(i, { url_matching: e.currentTarget.value as Step['url_matching'] })}
            >
              <option value="contains">URL contains</option>
              <option value="exact">URL is</option>
              <option value="regex">URL matches regex</option>
            </select>
            <input
              aria-label={`Step ${i + 1} URL`}
              placeholder="(any URL)"
              value={s.url ?? ''}
              onInput={(e) => setStep(i, { url: e.currentTarget.value })}
            />
            {steps.length > 1 ? (
              <button type="button" class="link" onClick={() => setSteps(steps.filter((_, j) => j !== i))}>
                Remove
              </button>
            ) : null}
          </div>
          <PropertyFilters value={s.properties ?? []} onChange={(properties) => setStep(i, { properties })} types={['event', 'person']} />
        </section>
      ))}
      <button type="button" class="secondary small" onClick={() => setSteps([...steps, { event: '', properties: [] }])}>
        + Add a step (or)
      </button>
      <div class="form-actions">
        <button type="submit" disabled={busy || !can('action:write')}>
          {action ? 'Save' : 'Create action'}
        </button>
        <a class="button secondary" href={`${base}/actions`}>
          Cancel
        </a>
      </div>
    </form>
  )
}
