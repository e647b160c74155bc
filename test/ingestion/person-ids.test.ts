// Person ids are unique across the whole instance, as PostHog's are ("Unique integer identifying the
// person"), not only within a project: two projects' persons never share an id, one project's id is a
// 404 in another, and a restart goes on counting where it stopped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { api, captureBatch, spawnWren, waitFor, type WrenProcess } from '../support/wren'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'

describe('person ids across projects', () => {
  let dataDir = ''
  let wren: WrenProcess | null = null
  const keys = { WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX), WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX) }
  const call = () => api({ url: wren!.url, personalKey: keys.WREN_PERSONAL_API_KEY })
  const projects: Array<{ id: number; token: string }> = []

  /** Captures one event per distinct id into the project and returns the persons' ids once all are stored. */
  const personsOf = async (project: { id: number; token: string }, distinctIds: string[]): Promise<Map<string, number>> => {
    await captureBatch(
      { url: wren!.url, projectKey: project.token },
      distinctIds.map((distinct_id) => ({ event: 'signed_up', distinct_id, properties: {} })),
    )
    const out = new Map<string, number>()
    await waitFor(
      async () => {
        for (const distinctId of distinctIds) {
          if (out.has(distinctId)) continue
          const res = await call()('GET', `/api/projects/${project.id}/persons/?distinct_id=${encodeURIComponent(distinctId)}`)
          const person = res.body?.results?.[0]
          if (person) out.set(distinctId, person.id as number)
        }
        return out.size === distinctIds.length
      },
      { what: `persons of project ${project.id}` },
    )
    return out
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wren-person-ids-'))
    wren = await spawnWren(dataDir, keys)
    const [first] = (await call()('GET', '/api/projects/')).body.results
    projects.push({ id: first.id, token: first.api_token })
    const created = await call()('POST', '/api/projects/', { name: 'Second project' })
    expect(created.status).toBe(201)
    projects.push({ id: created.body.id, token: created.body.api_token })
  }, 120_000)

  afterAll(async () => {
    await wren?.stop()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('gives every person an id no other project uses, and finds a person by id only in its own project', async () => {
    const [a, b] = projects
    const idsA = await personsOf(a, ['a-1', 'a-2', 'a-3'])
    const idsB = await personsOf(b, ['b-1', 'b-2', 'b-3'])
    const all = [...idsA.values(), ...idsB.values()]
    expect(new Set(all).size).toBe(all.length)

    for (const id of idsB.values()) {
      const elsewhere = await call()('GET', `/api/projects/${a.id}/persons/${id}/`)
      expect(elsewhere.status).toBe(404)
      const home = await call()('GET', `/api/projects/${b.id}/persons/${id}/`)
      expect(home.status).toBe(200)
      expect(home.body.id).toBe(id)
    }
    for (const [distinctId, id] of idsA) {
      const home = await call()('GET', `/api/projects/${a.id}/persons/${id}/`)
      expect(home.status).toBe(200)
      expect(home.body.distinct_ids).toEqual([distinctId])
    }

    // After a restart, new persons of either project still get ids nobody holds.
    expect(await wren!.stop()).toBe(0)
    wren = await spawnWren(dataDir, keys)
    const laterB = await personsOf(b, ['b-4', 'b-5'])
    const laterA = await personsOf(a, ['a-4'])
    const everything = [...all, ...laterA.values(), ...laterB.values()]
    expect(new Set(everything).size).toBe(everything.length)
    for (const [distinctId, id] of laterB) {
      expect((await call()('GET', `/api/projects/${a.id}/persons/${id}/`)).status).toBe(404)
      const home = await call()('GET', `/api/projects/${b.id}/persons/${id}/`)
      expect(home.body.distinct_ids).toEqual([distinctId])
    }
  }, 120_000)
})
