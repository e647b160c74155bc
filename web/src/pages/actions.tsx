// Actions: named sets of events (each step an event, optionally its URL, its properties and, for an autocaptured
// event, the clicked element's text, link, and CSS selector: services/actions/match.ts) that trends can count as a
// series; list, create, edit and delete.
import { useState } from 'preact/hooks'
import { get, WHOLE_LIST, withQuery } from '../api'
import type { Action, Matching, Paginated, Step } from '../answers'
import { DefinitionOptions } from '../components/definitions'
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
            <td class="truncate">{a.steps.map(describeStep).join(' or ')}</td>
          </tr>
        )}
      />
    </div>
  )
}

const AUTOCAPTURE = '$autocapture'

/** A step in a few words, for the list. */
const describeStep = (s: Step) =>
  [
    s.event || 'any event',
    s.event === AUTOCAPTURE && s.text ? `with text “${s.text}”` : '',
    s.event === AUTOCAPTURE && s.selector ? `on ${s.selector}` : '',
    s.event === AUTOCAPTURE && s.href ? `linking to ${s.href}` : '',
    s.url ? `at ${s.url}` : '',
  ]
    .filter(Boolean)
    .join(' ')

/** A step as the API takes it: element parts only on an `$autocapture` step (the only one they match). */
function stepBody(s: Step): Step {
  const trimmed = (v: string | null | undefined) => v?.trim() || null
  const body: Step = { event: trimmed(s.event), properties: completeFilters(s.properties ?? []) }
  const url = trimmed(s.url)
  if (url) Object.assign(body, { url, url_matching: s.url_matching ?? 'contains' })
  if (body.event !== AUTOCAPTURE) return body
  const text = trimmed(s.text)
  const href = trimmed(s.href)
  return {
    ...body,
    ...(text ? { text, text_matching: s.text_matching ?? 'exact' } : {}),
    ...(href ? { href, href_matching: s.href_matching ?? 'exact' } : {}),
    ...(trimmed(s.selector) ? { selector: trimmed(s.selector) } : {}),
    ...(trimmed(s.tag_name) ? { tag_name: trimmed(s.tag_name) } : {}),
  }
}

const MATCHINGS: Array<[Matching, string]> = [
  ['exact', 'is'],
  ['contains', 'contains'],
  ['regex', 'matches regex'],
]

/** A step's text, href or URL: how it is matched, then the value. */
function MatchField({
  label,
  name,
  value,
  matching,
  placeholder,
  onChange,
}: {
  label: string
  name: string
  value: string
  matching: Matching
  placeholder: string
  onChange: (patch: { value?: string; matching?: Matching }) => void
}) {
  return (
    <div class="match-field">
      <span class="match-label">{label}</span>
      <select aria-label={`${name} matching`} value={matching} onChange={(e) => onChange({ matching: e.currentTarget.value as Matching })}>
        {MATCHINGS.map(([m, text]) => (
          <option value={m}>{text}</option>
        ))}
      </select>
      <input aria-label={name} placeholder={placeholder} value={value} onInput={(e) => onChange({ value: e.currentTarget.value })} />
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
      const body = { name, description, steps: steps.map(stepBody) }
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
              list={`step-${i}-events`}
              placeholder="event (blank: any)"
              value={s.event ?? ''}
              onInput={(e) => setStep(i, { event: e.currentTarget.value })}
            />
            <DefinitionOptions id={`step-${i}-events`} kind="event" search={s.event ?? ''} />
            {steps.length > 1 ? (
              <button type="button" class="link" onClick={() => setSteps(steps.filter((_, j) => j !== i))}>
                Remove
              </button>
            ) : null}
          </div>
          <div class="match-fields">
            {s.event === AUTOCAPTURE ? (
              <>
                <MatchField
                  label="Element text"
                  name={`Step ${i + 1} text`}
                  value={s.text ?? ''}
                  matching={s.text_matching ?? 'exact'}
                  placeholder="(any text)"
                  onChange={(p) => setStep(i, { text: p.value ?? s.text, text_matching: p.matching ?? s.text_matching })}
                />
                <MatchField
                  label="Link (href)"
                  name={`Step ${i + 1} href`}
                  value={s.href ?? ''}
                  matching={s.href_matching ?? 'exact'}
                  placeholder="(any link)"
                  onChange={(p) => setStep(i, { href: p.value ?? s.href, href_matching: p.matching ?? s.href_matching })}
                />
                <div class="match-field">
                  <span class="match-label">Selector</span>
                  <input
                    aria-label={`Step ${i + 1} selector`}
                    placeholder="CSS, e.g. button.buy or #signup"
                    value={s.selector ?? ''}
                    onInput={(e) => setStep(i, { selector: e.currentTarget.value })}
                  />
                </div>
              </>
            ) : null}
            <MatchField
              label="Page URL"
              name={`Step ${i + 1} URL`}
              value={s.url ?? ''}
              matching={s.url_matching ?? 'contains'}
              placeholder="(any URL)"
              onChange={(p) => setStep(i, { url: p.value ?? s.url, url_matching: p.matching ?? s.url_matching })}
            />
          </div>
          {s.event === AUTOCAPTURE ? null : (
            <p class="muted small">Element text, link and selector match autocaptured clicks: choose the event $autocapture.</p>
          )}
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
