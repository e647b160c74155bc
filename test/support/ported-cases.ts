// Cases ported from PostHog's tests, each in a project of its own in the file's one Wren, with the setup of every
// case done once per file. A case is one function: what it does before `await c.ready()` is its setup (project,
// actions, cohorts, persons, events), run for every case of the file in one beforeAll; each project's events are
// then sent in one /batch/ request and ingestion is waited for once, rather than once per case. What follows
// `c.ready()` runs in the case's own `it`: its queries and assertions. After ready() a capture sends and waits at
// once, and a setup step that needs the events ingested (a static cohort of distinct ids) goes after ready() too.
//
//   let t: TestWren
//   beforeAll(async () => { t = await startWren() })        // before portedCases: before-hooks run in order
//   const ported = portedCases(() => t, funnelCase)
//   ported.it('test_x: what it shows', 'test_x', async (c) => { …setup…; await c.ready(); …queries and expect… })
//   ported.it('test_y: …', 'test_y', { timezone: 'Europe/Berlin' }, async (c) => { … })   // with project settings
//   ported.it('test_z: …', 'test_z UTC', async (utc, another) => { const la = await another('test_z LA', { timezone: 'America/Los_Angeles' }); … })
//
// A case whose setup fails fails in its own `it`, with its error; the other cases run.
import { beforeAll, expect, it } from 'vitest'
import { api, captureBatch, drained, type TestWren } from './wren'

export type Props = Record<string, unknown>
/** One event of a journey: its name, when, and its properties. */
export interface Step {
  event: string
  at: string
  properties?: Props
}
export type CapturedEvent = { distinct_id: string } & Step

/** A project of its own in a shared Wren, and what a ported case does with it. */
export interface ProjectCase {
  id: number
  token: string
  call: ReturnType<typeof api>
  /** Captures these events (in the given order) and waits until they are queryable (in portedCases: at ready()). */
  capture(events: CapturedEvent[]): Promise<void>
  /** Persons made up front: several distinct ids merged into one, and person properties, set long before any case's dates. */
  persons(list: Array<{ ids: string[]; properties?: Props }>): Promise<void>
  /** Journeys keyed by distinct id (PostHog's journeys_for), captured in one batch. */
  journeys(byPerson: Record<string, Step[]>): Promise<void>
  /** POST /query/ with this body; expects 200 and gives the body. */
  query(body: Props): Promise<any>
  /** Creates an action of these steps and gives its id. */
  action(name: string, steps: Props[]): Promise<number>
  /** Creates a cohort and gives its id. */
  cohort(body: Props): Promise<number>
  /** The end of the setup: in portedCases, resolves in the case's `it` once every case's events are ingested; else at once. */
  ready(): Promise<void>
}

/** A case's events, by its projects' tokens, held while `open` until they are sent (portedCases). */
export interface Gathering {
  events: Map<string, CapturedEvent[]>
  open: boolean
  ready(): Promise<void>
}

/** Opens a case's project: projectCase, or a kind's helper built on it (support/funnels.ts funnelCase). */
export type OpenCase<C extends ProjectCase> = (t: TestWren, name: string, settings: Props, gathering?: Gathering) => Promise<C>

const LONG_AGO = '2019-06-01T00:00:00Z'

/** A fresh project in the shared Wren (with these project settings), the helpers above bound to it. */
export async function projectCase(t: TestWren, name: string, settings: Props = {}, gathering?: Gathering): Promise<ProjectCase> {
  const call = api(t)
  const created = await call('POST', '/api/projects/', { name })
  expect(created.status, created.text).toBe(201)
  const { id, api_token: token } = created.body
  if (Object.keys(settings).length) {
    const patched = await call('PATCH', `/api/projects/${id}/`, settings)
    expect(patched.status, patched.text).toBe(200)
  }
  const capture = async (events: CapturedEvent[]) => {
    if (gathering?.open) {
      gathering.events.set(token, [...(gathering.events.get(token) ?? []), ...events])
      return
    }
    await captureBatch({ url: t.url, projectKey: token }, events.map(asCaptured))
    await drained(t.wren)
  }
  const created201 = async (route: string, body: Props) => {
    const res = await call('POST', `/api/projects/${id}/${route}/`, body)
    expect(res.status, res.text).toBe(201)
    return res.body.id as number
  }
  return {
    id,
    token,
    call,
    capture,
    async persons(list) {
      const events: CapturedEvent[] = []
      for (const p of list) {
        const [main, ...others] = p.ids
        events.push({ event: '$set', distinct_id: main, at: LONG_AGO, properties: { $set: p.properties ?? {} } })
        for (const other of others) events.push({ event: '$create_alias', distinct_id: main, at: LONG_AGO, properties: { alias: other } })
      }
      await capture(events)
    },
    async journeys(byPerson) {
      await capture(Object.entries(byPerson).flatMap(([distinct_id, steps]) => steps.map((s) => ({ distinct_id, ...s }))))
    },
    async query(body) {
      const res = await call('POST', `/api/environments/${id}/query/`, { query: body })
      expect(res.status, `${JSON.stringify(body)} → ${res.text}`).toBe(200)
      return res.body
    },
    action: (actionName, steps) => created201('actions', { name: actionName, steps }),
    cohort: (body) => created201('cohorts', body),
    ready: async () => gathering?.ready(),
  }
}

const asCaptured = (e: CapturedEvent) => ({ event: e.event, distinct_id: e.distinct_id, timestamp: e.at, properties: e.properties ?? {} })

/** A case: its first project, and `another` to open more (each with its own settings) in its setup. */
export type CaseBody<C> = (c: C, another: (name: string, settings?: Props) => Promise<C>) => Promise<void>

interface Pending<C> {
  name: string
  settings: Props
  body: CaseBody<C>
  gathering?: Gathering
  run?: Promise<void>
  release?: () => void
  failed?: unknown
}

/** Registers the file's cases (see the top of this file); call it after the beforeAll that starts the Wren. */
export function portedCases<C extends ProjectCase>(wren: () => TestWren, open: OpenCase<C>) {
  const cases: Array<Pending<C>> = []
  beforeAll(async () => {
    const t = wren()
    for (const one of cases) await setUp(t, one, open)
    const sending = cases
      .filter((one) => !one.failed)
      .flatMap((one) => [...one.gathering!.events].map(([token, events]) => ({ one, token, events })))
    await Promise.all(
      sending.map(({ one, token, events }) =>
        captureBatch({ url: t.url, projectKey: token }, events.map(asCaptured)).catch((err: unknown) => {
          one.failed = err
        }),
      ),
    )
    await drained(t.wren)
  })
  return {
    /** An `it` titled `title` for the case `name` (its project's name), in a project with these settings, if any. */
    it(title: string, name: string, ...rest: [body: CaseBody<C>] | [settings: Props, body: CaseBody<C>]) {
      const [settings, body] = rest.length === 1 ? [{}, rest[0]] : rest
      const one: Pending<C> = { name, settings, body }
      cases.push(one)
      it(title, async () => {
        if (one.failed !== undefined) throw one.failed
        one.gathering!.open = false
        one.release!()
        await one.run
      })
    },
  }
}

/** Runs a case up to its ready(): its setup. A failure is kept for its `it`. */
async function setUp<C extends ProjectCase>(t: TestWren, one: Pending<C>, open: OpenCase<C>): Promise<void> {
  let reached!: () => void
  const atReady = new Promise<void>((resolve) => (reached = resolve))
  const released = new Promise<void>((resolve) => (one.release = resolve))
  one.gathering = {
    events: new Map(),
    open: true,
    ready: () => {
      reached()
      return released
    },
  }
  try {
    const c = await open(t, one.name, one.settings, one.gathering)
    one.run = one.body(c, (name, settings = {}) => open(t, name, settings, one.gathering))
    one.run.catch(() => {}) // its `it` reports it
    const ended = await Promise.race([atReady.then(() => false), one.run.then(() => true)])
    if (ended) throw new Error(`${one.name}: the case never called c.ready()`)
  } catch (err) {
    one.failed = err
  }
}
