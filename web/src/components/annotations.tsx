// Annotations under a chart over time, as PostHog's charts show them: a strip below the x axis with a badge under
// each bucket that has notes (the chart draws a dashed line there too). A click on a badge lists that bucket's notes;
// a click on an empty bucket (with annotation:write) adds one there, for the project, the organization or only this
// insight. A dashboard tile shows the badges and lists the notes, and adds none.
import { createContext } from 'preact'
import { useContext, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import { allows, apiPath, del, get, post, withQuery, WHOLE_LIST } from '../api'
import type { Paginated } from '../answers'
import { byBucket, bucketRange, showsOn, wallTime, type Annotation } from '../annotations'
import { SessionContext } from '../session'
import { ErrorBox } from './feedback'
import { useAction, useLoad } from './load'

/** What a chart needs to show annotations: its buckets' starts, and the saved insight it draws (null: an unsaved one). */
export interface AnnotationsOn {
  days: string[]
  insightId: number | null
  /** A tile's size: badges, and their lists, but no adding. */
  compact?: boolean
}

export interface ChartNotes {
  /** The notes of each bucket of `days`. */
  buckets: Annotation[][]
  /** The buckets with notes: where the chart draws its dashed lines. */
  marked: number[]
}

interface Loaded extends ChartNotes {
  on: AnnotationsOn
  canWrite: boolean
  reload: () => void
}

const NONE: Annotation[] = []

/** The dashboard whose tiles are drawn (null elsewhere): its own annotations show on each of them. */
export const OnDashboard = createContext<number | null>(null)

/**
 * The annotations list at `path`, one request for the charts that ask for it at once (a dashboard's tiles over the
 * same range); forgotten once answered, so a later ask reads it anew.
 */
const asking = new Map<string, Promise<Annotation[]>>()
function listOnce(path: string): Promise<Annotation[]> {
  let answer = asking.get(path)
  if (!answer) {
    answer = get<Paginated<Annotation>>(path).then((page) => page.results)
    asking.set(path, answer)
    void answer.finally(() => asking.delete(path)).catch(() => {})
  }
  return answer
}

/** The annotations a chart shows (none without `on`, outside a signed-in page, or without annotation:read). */
export function useChartNotes(on: AnnotationsOn | undefined): Loaded | null {
  const session = useContext(SessionContext)
  const readable = !!on && !!session && allows(session.scopes, 'annotation:read') && on.days.length > 0
  const range = on ? bucketRange(on.days) : null
  const projectId = session?.project.id ?? null
  const loaded = useLoad(async () => {
    if (!readable || !range || projectId === null) return NONE
    const path = withQuery(apiPath(projectId, '/annotations/'), { date_from: range.from, date_to: range.to, limit: WHOLE_LIST })
    return listOnce(path)
  }, [readable, projectId, range?.from, range?.to])
  const timezone = session?.project.timezone ?? 'UTC'
  const insightId = on?.insightId ?? null
  const dashboardId = useContext(OnDashboard)
  const buckets = useMemo(
    () =>
      byBucket(
        (loaded.data ?? NONE).filter((n) => showsOn(n, insightId, dashboardId)),
        on?.days ?? [],
        timezone,
      ),
    [loaded.data, on?.days, timezone, insightId, dashboardId],
  )
  if (!readable || !on || !session) return null
  return {
    on,
    buckets,
    marked: buckets.flatMap((notes, i) => (notes.length ? [i] : [])),
    canWrite: allows(session.scopes, 'annotation:write') && !on.compact,
    reload: loaded.reload,
  }
}

/** Where each bucket is drawn, in pixels from the strip's left: its centre and its width. */
export interface BucketAt {
  x: number
  width: number
}

/**
 * The strip: one cell per bucket at `at`, a badge with the count where there are notes. `labels`: the buckets'
 * names as the x axis shows them. `top`: where it sits in its (positioned) box; in the flow when not given.
 */
export function AnnotationStrip({ notes, at, labels, top }: { notes: Loaded; at: BucketAt[]; labels: string[]; top?: number }) {
  const [open, setOpen] = useState<number | null>(null)
  const strip = useRef<HTMLDivElement>(null)
  return (
    <div
      class="annotation-strip"
      ref={strip}
      data-testid="annotations"
      style={top !== undefined ? { position: 'absolute', top, left: 0, right: 0 } : undefined}
    >
      {at.map((cell, i) => {
        const count = notes.buckets[i]?.length ?? 0
        if (!count && !notes.canWrite) return null
        const label = labels[i] ?? ''
        return (
          <button
            type="button"
            class={count ? 'annotation-cell marked' : 'annotation-cell'}
            style={{ left: cell.x - cell.width / 2, width: Math.max(cell.width, 4) }}
            data-bucket={i}
            aria-label={count ? `${count} ${count === 1 ? 'annotation' : 'annotations'} on ${label}` : `Annotate ${label}`}
            aria-expanded={open === i}
            title={count ? notes.buckets[i].map((n) => n.content).join('\n') : `Add an annotation on ${label}`}
            onClick={() => setOpen(open === i ? null : i)}
          >
            {count ? <span class="badge">{count}</span> : <span class="plus">+</span>}
          </button>
        )
      })}
      {open !== null && at[open] ? (
        <NotesPopover
          key={open}
          notes={notes}
          bucket={open}
          label={labels[open] ?? ''}
          anchor={() => strip.current?.querySelector(`[data-bucket="${open}"]`) ?? null}
          onClose={() => setOpen(null)}
        />
      ) : null}
    </div>
  )
}

/** Who wrote a note: the user, or what made it (PostHog's creation type: GIT is a deploy tool). */
const author = (note: Annotation) =>
  note.created_by?.email || note.created_by?.first_name || (note.creation_type === 'GIT' ? 'a deploy tool' : 'an API key')

/** A bucket's notes (each deletable with annotation:write), and a form that adds one at the bucket's start. */
function NotesPopover({
  notes,
  bucket,
  label,
  anchor,
  onClose,
}: {
  notes: Loaded
  bucket: number
  label: string
  /** The badge it opened from: it shows below it, kept there as the page scrolls (fixed, so no box clips it). */
  anchor: () => Element | null
  onClose: () => void
}) {
  const [place, setPlace] = useState<{ left: number; top: number } | null>(null)
  const box = useRef<HTMLDivElement>(null)
  // Below the badge, or above it when the window has no room below; never outside the window.
  const follow = () => {
    const cell = anchor()?.getBoundingClientRect()
    if (!cell) return
    const width = Math.min(300, innerWidth - 24)
    const height = box.current?.offsetHeight ?? 0
    const below = cell.bottom + 4
    const top = below + height <= innerHeight - 8 ? below : Math.max(8, cell.top - 4 - height)
    const left = Math.min(Math.max(cell.left + cell.width / 2 - width / 2, 8), innerWidth - width - 8)
    setPlace((now) => (now && now.top === top && now.left === left ? now : { left, top }))
  }
  const following = useRef(follow)
  following.current = follow
  // Placed again after each render (a note added or deleted changes its height) and as the page scrolls.
  useLayoutEffect(follow)
  useLayoutEffect(() => {
    const move = () => following.current()
    const escape = (event: KeyboardEvent) => event.key === 'Escape' && onClose()
    addEventListener('scroll', move, { capture: true, passive: true })
    addEventListener('resize', move)
    addEventListener('keydown', escape)
    return () => {
      removeEventListener('scroll', move, { capture: true })
      removeEventListener('resize', move)
      removeEventListener('keydown', escape)
    }
  }, [])
  const session = useContext(SessionContext)!
  const [content, setContent] = useState('')
  const insightId = notes.on.insightId
  const [scope, setScope] = useState<string>(insightId !== null ? 'dashboard_item' : 'project')
  const [error, busy, run] = useAction()
  const path = (p: string) => apiPath(session.project.id, p)
  const here = notes.buckets[bucket] ?? []
  const add = async (event: Event) => {
    event.preventDefault()
    const ok = await run(() =>
      post(path('/annotations/'), {
        content: content.trim(),
        // The bucket's start, a wall time the API reads in the project's timezone.
        date_marker: wallTime(notes.on.days[bucket]).replace(' ', 'T'),
        scope,
        ...(scope === 'dashboard_item' ? { dashboard_item: insightId } : {}),
      }),
    )
    if (ok) {
      setContent('')
      notes.reload()
    }
  }
  const remove = async (note: Annotation) => {
    if (await run(() => del(path(`/annotations/${note.id}/`)))) notes.reload()
  }
  return (
    <div
      ref={box}
      class="annotation-popover card"
      role="dialog"
      aria-label={`Annotations on ${label}`}
      style={place ?? { visibility: 'hidden' }}
    >
      <div class="popover-head">
        <strong>{label}</strong>
        <button type="button" class="link" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </div>
      <ErrorBox error={error} />
      {here.length ? (
        <ul class="annotation-list">
          {here.map((note) => (
            <li data-annotation={note.id}>
              <span class="annotation-content">{note.content}</span>
              <span class="muted">
                {author(note)} ·{' '}
                {new Date(note.date_marker).toLocaleString('en-GB', {
                  timeZone: session.project.timezone,
                  dateStyle: 'medium',
                  timeStyle: 'short',
                })}
                {note.scope === 'dashboard_item' ? ' · this insight' : note.scope === 'organization' ? ' · organization' : ''}
              </span>
              {notes.canWrite ? (
                <button type="button" class="link danger-text" disabled={busy} onClick={() => remove(note)}>
                  Delete
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">No annotations here yet.</p>
      )}
      {notes.canWrite ? (
        <form class="annotation-form" onSubmit={add}>
          <input
            aria-label="Annotation"
            placeholder="e.g. Launched the new pricing page"
            maxLength={400}
            required
            value={content}
            onInput={(e) => setContent(e.currentTarget.value)}
          />
          <select aria-label="Shown on" value={scope} onChange={(e) => setScope(e.currentTarget.value)}>
            {insightId !== null ? <option value="dashboard_item">This insight</option> : null}
            <option value="project">This project</option>
            <option value="organization">The organization</option>
          </select>
          <button type="submit" disabled={busy || !content.trim()}>
            Add
          </button>
        </form>
      ) : null}
    </div>
  )
}
