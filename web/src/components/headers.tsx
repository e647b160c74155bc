// Page headers: a title with the page's actions (a list's New link, an editor's Delete button).
import type { ComponentChildren } from 'preact'

export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <header class="page-header">
      <h1>{title}</h1>
      <div class="actions">{children}</div>
    </header>
  )
}

/** A list page's header: its title and, when the key may create one (`create` given), a link to a new one. */
export function ListHeader({ title, create }: { title: string; create: { href: string; label: string } | null }) {
  return (
    <PageHeader title={title}>
      {create ? (
        <a class="button" href={create.href}>
          {create.label}
        </a>
      ) : null}
    </PageHeader>
  )
}

/**
 * An editor's header: its title and, when `onDelete` is given (the object exists and the key may write), a
 * Delete button.
 */
export function EditorHeader({ title, busy, onDelete }: { title: string; busy: boolean; onDelete: (() => void) | null }) {
  return (
    <PageHeader title={title}>
      {onDelete ? (
        <button type="button" class="danger" disabled={busy} onClick={onDelete}>
          Delete
        </button>
      ) : null}
    </PageHeader>
  )
}
