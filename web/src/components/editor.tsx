// An object's editor page: loading the object (or none, for a new one), its name fields, saving and deleting it.
import type { ComponentChildren } from 'preact'
import { get, patch, post } from '../api'
import { navigate } from '../router'
import { ErrorBox, Loading } from './feedback'
import { useLoad } from './load'

/** An object's page: `new` opens an empty editor; any other id is loaded from `url(id)` first. */
export function ItemPage<T>({
  id,
  url,
  editor,
}: {
  id: string
  url: (id: string) => string
  editor: (item: T | null) => ComponentChildren
}) {
  const isNew = id === 'new'
  const item = useLoad(() => (isNew ? Promise.resolve(null) : get<T>(url(encodeURIComponent(id)))), [id])
  if (item.error) return <ErrorBox error={item.error} />
  if (item.loading) return <Loading />
  return <>{editor(item.data)}</>
}

/** Saves an editor's object: PATCH when it exists (`id`), else POST to its collection; then opens `back`. */
export async function saveItem(collection: string, id: number | null, body: object, back: string): Promise<void> {
  if (id === null) await post(collection, body)
  else await patch(`${collection}${id}/`, body)
  navigate(back)
}

/** The name and description fields of an editor. */
export function NameFields(props: { name: string; description: string; onName: (v: string) => void; onDescription: (v: string) => void }) {
  return (
    <>
      <label>
        Name
        <input name="name" required value={props.name} onInput={(e) => props.onName(e.currentTarget.value)} />
      </label>
      <label>
        Description
        <input name="description" value={props.description} onInput={(e) => props.onDescription(e.currentTarget.value)} />
      </label>
    </>
  )
}

/** Deletes an object the way PostHog's API does (PATCH `{deleted: true}`) once the user confirms, then opens `back`. */
export function softDelete(run: (action: () => Promise<unknown>) => Promise<boolean>, question: string, url: string, back: string) {
  return () => {
    if (!confirm(question)) return
    void run(async () => {
      await patch(url, { deleted: true })
      navigate(back)
    })
  }
}
