// Feature flags: the list (with an active toggle), a flag's editor (key, release conditions on person
// properties and cohorts with their rollout, variants with payloads), soft delete, and a box that asks
// /flags what a distinct id gets.
import { useState } from 'preact/hooks'
import { get, patch, request, withQuery } from '../api'
import type { Flag, Group, Paginated, Variant } from '../answers'
import { ItemPage, saveItem, softDelete } from '../components/editor'
import { Empty, ErrorBox } from '../components/feedback'
import { EditorHeader, ListHeader } from '../components/headers'
import { Listing } from '../components/listing'
import { useAction, useLoad } from '../components/load'
import { JsonView } from '../components/properties'
import { completeFilters, PropertyFilters } from '../components/property-filters'
import { useSession } from '../session'

export function FlagsPage() {
  const { path, base, can } = useSession()
  const [search, setSearch] = useState('')
  const flags = useLoad(() => get<Paginated<Flag>>(withQuery(path('feature_flags/'), { search, limit: 100 })), [search])
  const [error, busy, run] = useAction()
  const toggle = (flag: Flag) =>
    run(async () => {
      await patch(path(`feature_flags/${flag.id}/`), { active: !flag.active })
      flags.reload()
    })
  return (
    <div>
      <ListHeader
        title="Feature flags"
        create={can('feature_flag:write') ? { href: `${base}/feature_flags/new`, label: 'New flag' } : null}
      />
      <TestDistinctId />
      <section class="card controls">
        <label>
          Search
          <input
            type="search"
            aria-label="Search flags"
            placeholder="key or name"
            value={search}
            onChange={(e) => setSearch(e.currentTarget.value)}
          />
        </label>
      </section>
      <Listing
        loaded={flags}
        error={error}
        empty={
          <Empty title={search ? 'No flags match.' : 'No feature flags yet.'}>
            <p>Create one with “New flag”, then read it in your app with posthog.isFeatureEnabled('your-flag').</p>
          </Empty>
        }
        head={
          <>
            <th>Key</th>
            <th>Rollout</th>
            <th>Active</th>
          </>
        }
        row={(f) => (
          <tr>
            <td>
              <a href={`${base}/feature_flags/${f.id}`}>{f.key}</a>
              {f.name ? <div class="muted small">{f.name}</div> : null}
            </td>
            <td>{summary(f)}</td>
            <td>
              <label class="switch">
                <input
                  type="checkbox"
                  aria-label={`${f.key} active`}
                  checked={f.active}
                  disabled={busy || !can('feature_flag:write')}
                  onChange={() => toggle(f)}
                />
                {f.active ? 'on' : 'off'}
              </label>
            </td>
          </tr>
        )}
      />
    </div>
  )
}

function summary(flag: Flag): string {
  const groups = flag.filters.groups ?? []
  const variants = flag.filters.multivariate?.variants ?? []
  // A condition group may come without `properties` (the API stores it as none).
  const rollout = groups.map((g) => {
    const conditions = g.properties?.length ?? 0
    return `${g.rollout_percentage ?? 100}%${conditions ? ` of ${conditions === 1 ? 'a condition' : `${conditions} conditions`}` : ''}`
  })
  return `${rollout.join(', ') || 'nobody'}${variants.length ? ` · ${variants.length} variants` : ''}`
}

/** What /flags answers for a distinct id (with the project's API key, as an SDK asks). */
export function TestDistinctId() {
  const { project } = useSession()
  const [distinctId, setDistinctId] = useState('')
  const [answer, setAnswer] = useState<Record<
    string,
    { enabled?: boolean; variant?: string | null; metadata?: { payload?: unknown } }
  > | null>(null)
  const [error, busy, run] = useAction()
  const test = (event: Event) => {
    event.preventDefault()
    run(async () => {
      const response = await request<{ flags?: typeof answer }>('POST', '/flags?v=2', { token: project.api_token, distinct_id: distinctId })
      setAnswer(response.flags ?? {})
    })
  }
  return (
    <section class="card test-flags">
      <form class="inline" onSubmit={test}>
        <label for="test-distinct-id">Test a distinct id</label>
        <input
          id="test-distinct-id"
          placeholder="distinct id"
          required
          value={distinctId}
          onInput={(e) => setDistinctId(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          Evaluate
        </button>
      </form>
      <ErrorBox error={error} />
      {answer ? (
        Object.keys(answer).length === 0 ? (
          <p class="muted">No flags are active in this project.</p>
        ) : (
          <table class="list flag-answer">
            <tbody>
              {Object.entries(answer).map(([key, value]) => (
                <tr data-flag={key}>
                  <td>
                    <code>{key}</code>
                  </td>
                  <td class={value.enabled ? 'on' : 'off'}>
                    {value.enabled ? (value.variant ? `variant ${value.variant}` : 'enabled') : 'disabled'}
                  </td>
                  <td class="truncate">
                    {value.metadata?.payload !== undefined && value.metadata.payload !== null ? String(value.metadata.payload) : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : null}
    </section>
  )
}

interface Draft {
  key: string
  name: string
  active: boolean
  groups: Group[]
  variants: (Variant & { payload: string })[]
  payload: string
}

const draftOf = (flag: Flag | null): Draft => {
  const payloads = flag?.filters.payloads ?? {}
  const text = (value: unknown) => (value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value))
  return {
    key: flag?.key ?? '',
    name: flag?.name ?? '',
    active: flag?.active ?? true,
    groups: flag?.filters.groups?.length
      ? flag.filters.groups.map((g) => ({ ...g, properties: g.properties ?? [] }))
      : [{ properties: [], rollout_percentage: 100 }],
    variants: (flag?.filters.multivariate?.variants ?? []).map((v) => ({ ...v, payload: text(payloads[v.key]) })),
    payload: text(payloads.true),
  }
}

function filtersOf(draft: Draft): Flag['filters'] {
  const payloads: Record<string, string> = {}
  if (draft.variants.length) for (const v of draft.variants) if (v.payload.trim()) payloads[v.key] = v.payload.trim()
  if (!draft.variants.length && draft.payload.trim()) payloads.true = draft.payload.trim()
  return {
    groups: draft.groups.map((g) => ({ ...g, properties: completeFilters(g.properties) })),
    multivariate: draft.variants.length
      ? { variants: draft.variants.map(({ key, name, rollout_percentage }) => ({ key, name, rollout_percentage })) }
      : null,
    payloads,
  }
}

export function FlagPage({ id }: { id: string }) {
  const { path, base, can } = useSession()
  return (
    <ItemPage<Flag>
      id={id}
      url={(id) => path(`feature_flags/${id}/`)}
      editor={(flag) => <FlagEditor flag={flag} path={path} base={base} writable={can('feature_flag:write')} />}
    />
  )
}

function FlagEditor({ flag, path, base, writable }: { flag: Flag | null; path: (p: string) => string; base: string; writable: boolean }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(flag))
  const [error, busy, run] = useAction()
  const set = (patchDraft: Partial<Draft>) => setDraft({ ...draft, ...patchDraft })
  const setGroup = (i: number, g: Partial<Group>) => set({ groups: draft.groups.map((x, j) => (j === i ? { ...x, ...g } : x)) })
  const setVariant = (i: number, v: Partial<Draft['variants'][number]>) =>
    set({ variants: draft.variants.map((x, j) => (j === i ? { ...x, ...v } : x)) })
  const variantTotal = draft.variants.reduce((n, v) => n + (Number(v.rollout_percentage) || 0), 0)
  const save = (event: Event) => {
    event.preventDefault()
    run(async () => {
      const body = { key: draft.key.trim(), name: draft.name, active: draft.active, filters: filtersOf(draft) }
      await saveItem(path('feature_flags/'), flag?.id ?? null, body, `${base}/feature_flags`)
    })
  }
  return (
    <form class="flag-editor" onSubmit={save}>
      <EditorHeader
        title={flag ? `Flag ${flag.key}` : 'New feature flag'}
        busy={busy}
        onDelete={
          flag && writable
            ? softDelete(
                run,
                `Delete the flag ${flag.key}? SDKs stop receiving it.`,
                path(`feature_flags/${flag.id}/`),
                `${base}/feature_flags`,
              )
            : null
        }
      />
      <ErrorBox error={error} />
      <section class="card grid">
        <label>
          Key
          <input name="key" required placeholder="my-flag" value={draft.key} onInput={(e) => set({ key: e.currentTarget.value })} />
        </label>
        <label>
          Description
          <input name="name" placeholder="what it is for" value={draft.name} onInput={(e) => set({ name: e.currentTarget.value })} />
        </label>
        <label class="check">
          <input type="checkbox" name="active" checked={draft.active} onChange={(e) => set({ active: e.currentTarget.checked })} /> Active
        </label>
      </section>
      <h2>Release conditions</h2>
      <p class="muted small">A distinct id matches when it matches every filter of a condition set; then the rollout decides.</p>
      {draft.groups.map((g, i) => (
        <section class="card condition" key={i}>
          <div class="inline">
            <strong>Condition set {i + 1}</strong>
            <label>
              Roll out to
              <input
                type="number"
                min={0}
                max={100}
                aria-label={`Rollout percentage of condition set ${i + 1}`}
                value={g.rollout_percentage ?? 100}
                onInput={(e) => setGroup(i, { rollout_percentage: e.currentTarget.value === '' ? null : Number(e.currentTarget.value) })}
              />
              %
            </label>
            {draft.groups.length > 1 ? (
              <button type="button" class="link" onClick={() => set({ groups: draft.groups.filter((_, j) => j !== i) })}>
                Remove
              </button>
            ) : null}
          </div>
          <PropertyFilters
            label="Match persons where"
            value={g.properties}
            onChange={(properties) => setGroup(i, { properties })}
            types={['person', 'cohort']}
          />
        </section>
      ))}
      <button
        type="button"
        class="secondary small"
        onClick={() => set({ groups: [...draft.groups, { properties: [], rollout_percentage: 100 }] })}
      >
        + Add condition set
      </button>
      <h2>Variants</h2>
      {draft.variants.length === 0 ? (
        <section class="card">
          <p class="muted small">A boolean flag. Add variants to make it multivariate.</p>
          <label>
            Payload (when enabled)
            <textarea
              name="payload"
              rows={2}
              placeholder='e.g. {"color": "blue"}'
              value={draft.payload}
              onInput={(e) => set({ payload: e.currentTarget.value })}
            />
          </label>
        </section>
      ) : (
        <section class="card">
          {draft.variants.map((v, i) => (
            <div class="variant inline" key={i}>
              <input
                aria-label={`Variant ${i + 1} key`}
                placeholder="variant key"
                value={v.key}
                onInput={(e) => setVariant(i, { key: e.currentTarget.value })}
              />
              <input
                type="number"
                min={0}
                max={100}
                aria-label={`Variant ${i + 1} rollout`}
                value={v.rollout_percentage}
                onInput={(e) => setVariant(i, { rollout_percentage: Number(e.currentTarget.value) })}
              />
              %
              <input
                aria-label={`Variant ${i + 1} payload`}
                placeholder="payload (JSON or text)"
                value={v.payload}
                onInput={(e) => setVariant(i, { payload: e.currentTarget.value })}
              />
              <button type="button" class="link" onClick={() => set({ variants: draft.variants.filter((_, j) => j !== i) })}>
                ✕
              </button>
            </div>
          ))}
          <p class={variantTotal === 100 ? 'muted small' : 'warning small'}>
            Variants add up to {variantTotal}% (they must add up to 100%).
          </p>
        </section>
      )}
      <button
        type="button"
        class="secondary small"
        onClick={() =>
          set({
            variants: [
              ...draft.variants,
              { key: draft.variants.length ? `variant-${draft.variants.length + 1}` : 'control', rollout_percentage: 0, payload: '' },
            ],
          })
        }
      >
        + Add variant
      </button>
      {flag ? (
        <details>
          <summary>As the API has it</summary>
          <JsonView value={flag} />
        </details>
      ) : null}
      <div class="form-actions">
        <button type="submit" disabled={busy || !writable}>
          {flag ? 'Save' : 'Create flag'}
        </button>
        <a class="button secondary" href={`${base}/feature_flags`}>
          Cancel
        </a>
      </div>
    </form>
  )
}
