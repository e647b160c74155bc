// Loading data from the API and running actions, keeping the API's error (with its detail) to show.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { ApiError } from '../api'

export interface Loaded<T> {
  data: T | null
  error: ApiError | null
  loading: boolean
  reload: () => void
}

/** Runs `load` when `deps` change (and on reload); the newest call wins. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: ApiError | null; loading: boolean }>({
    data: null,
    error: null,
    loading: true,
  })
  const [tick, setTick] = useState(0)
  const call = useRef(0)
  useEffect(() => {
    const id = ++call.current
    setState((s) => ({ ...s, loading: true }))
    load().then(
      (data) => id === call.current && setState({ data, error: null, loading: false }),
      (error: unknown) => id === call.current && setState({ data: null, error: asApiError(error), loading: false }),
    )
  }, [...deps, tick])
  const reload = useCallback(() => setTick((t) => t + 1), [])
  return { ...state, reload }
}

export function asApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(0, error instanceof Error ? error.message : String(error), null, null)
}

/** Runs an action from a button or form, keeping its error to show. */
export function useAction(): [ApiError | null, boolean, (action: () => Promise<unknown>) => Promise<boolean>] {
  const [error, setError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState(false)
  const run = useCallback(async (action: () => Promise<unknown>) => {
    setBusy(true)
    setError(null)
    try {
      await action()
      return true
    } catch (e) {
      setError(asApiError(e))
      return false
    } finally {
      setBusy(false)
    }
  }, [])
  return [error, busy, run]
}
