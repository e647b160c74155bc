// The app's paths: /project/:id/:section/:rest, pushed onto the browser's history; the server answers each
// with the same page (services/web/routes.ts).
import { useEffect, useState } from 'preact/hooks'

export interface Place {
  path: string
  search: string
}

const here = (): Place => ({ path: location.pathname, search: location.search })

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return
  if (options.replace) history.replaceState(null, '', to)
  else history.pushState(null, '', to)
  dispatchEvent(new PopStateEvent('popstate'))
}

export function usePlace(): Place {
  const [place, setPlace] = useState(here)
  useEffect(() => {
    const update = () => setPlace(here())
    addEventListener('popstate', update)
    return () => removeEventListener('popstate', update)
  }, [])
  return place
}

/** A path's parts: /project/:id/:section/:rest… (null parts when absent). */
export function parsePath(path: string): { project: number | null; section: string | null; rest: string[] } {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent)
  if (parts[0] !== 'project' || !/^\d+$/.test(parts[1] ?? '')) return { project: null, section: null, rest: [] }
  return { project: Number(parts[1]), section: parts[2] ?? null, rest: parts.slice(3) }
}

/** A click on an in-app link moves with the history API; a modified click (new tab) is left to the browser. */
export function onLinkClick(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
  const anchor = (event.target as Element).closest('a')
  if (!anchor || anchor.target || anchor.origin !== location.origin || anchor.hasAttribute('download')) return
  if (anchor.dataset.external !== undefined) return
  event.preventDefault()
  navigate(anchor.pathname + anchor.search)
}
