// Autocomplete from the names ingestion has seen (services/definitions): a <datalist> of the event or
// property names matching what is typed. A key without the definitions' scope gets no suggestions, not an error.
import { useEffect, useState } from 'preact/hooks'
import { get, withQuery } from '../api'
import type { EventDefinitionPage, PropertyDefinitionPage } from '../answers'
import { useSession } from '../session'
import { useLoad } from './load'

export type DefinitionKind = 'event' | 'event property' | 'numeric property' | 'person' | 'group' | 'session'

/** The datalist `id`: names of `kind` matching `search` (asked once typing pauses). */
export function DefinitionOptions({
  id,
  kind,
  search,
  groupTypeIndex = null,
}: {
  id: string
  kind: DefinitionKind
  search: string
  groupTypeIndex?: number | null
}) {
  const { path } = useSession()
  const [settled, setSettled] = useState(search)
  useEffect(() => {
    const timer = setTimeout(() => setSettled(search), 250)
    return () => clearTimeout(timer)
  }, [search])
  const url =
    kind === 'event'
      ? withQuery(path('event_definitions/'), { search: settled, limit: 50 })
      : withQuery(path('property_definitions/'), {
          search: settled,
          limit: 50,
          type: kind === 'event property' || kind === 'numeric property' ? 'event' : kind,
          is_numerical: kind === 'numeric property' ? 'true' : undefined,
          group_type_index: kind === 'group' ? (groupTypeIndex ?? 0) : undefined,
        })
  const names = useLoad(() => get<EventDefinitionPage | PropertyDefinitionPage>(url).then((page) => page.results.map((d) => d.name)), [url])
  return (
    <datalist id={id}>
      {(names.data ?? []).map((name) => (
        <option value={name} />
      ))}
    </datalist>
  )
}
