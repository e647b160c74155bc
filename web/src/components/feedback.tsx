// What a page shows instead of (or above) its content: an API error with its detail, loading, an empty state.
import type { ComponentChildren } from 'preact'
import type { ApiError } from '../api'

export function ErrorBox({ error }: { error: ApiError | null }) {
  if (!error) return null
  return (
    <div class="error" role="alert">
      <strong>{error.status === 403 ? 'Not allowed' : error.status === 401 ? 'Not signed in' : 'Error'}</strong>
      {error.status ? <span class="muted"> ({error.status})</span> : null}: {error.detail}
      {error.attr ? <span class="muted"> — field: {error.attr}</span> : null}
    </div>
  )
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <h3>{title}</h3>
      {children}
    </div>
  )
}

export function Loading() {
  return <p class="muted loading">Loading…</p>
}

/** The card of the pages before sign-in (sign-in, setting up the owner, accepting an invitation): Wren's name over `children`. */
export function SignInCard({ children }: { children: ComponentChildren }) {
  return (
    <main class="signin">
      <div class="card">
        <h1>
          <span class="logo">◆</span> Wren
        </h1>
        {children}
      </div>
    </main>
  )
}
