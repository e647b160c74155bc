// `wren keys list|revoke` on a stopped data directory, then a Wren started on it refuses the revoked key.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnWren, wrenCli } from '../support/wren'

describe('wren keys list|revoke', () => {
  let dataDir: string
  const wren = (...args: string[]): Promise<Array<Record<string, any>>> => wrenCli(dataDir, ...args)
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wren-keys-cli-'))
  })
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true })
  })

  it('lists keys masked and revokes one; Wren then refuses it and keeps the other', async () => {
    const [project] = await wren('projects', 'create', 'CLI project')
    const [kept] = await wren('keys', 'create', '--scopes', 'project:read', '--label', 'kept')
    const [leaked] = await wren('keys', 'create', '--scopes', 'project:read', '--projects', String(project.id), '--label', 'leaked')

    const listed = await wren('keys', 'list')
    expect(listed.map((k) => [k.label, k.mask_value, k.scopes, k.scoped_teams])).toEqual([
      ['kept', `phx_...${kept.value.slice(-4)}`, ['project:read'], []],
      ['leaked', `phx_...${leaked.value.slice(-4)}`, ['project:read'], [project.id]],
    ])
    expect(JSON.stringify(listed)).not.toContain(kept.value)

    expect(await wren('keys', 'revoke', leaked.id)).toEqual([{ id: leaked.id, revoked: true }])
    expect((await wren('keys', 'list')).map((k) => k.label)).toEqual(['kept'])
    await expect(wren('keys', 'revoke', leaked.id)).rejects.toThrow(/No personal API key/)

    const server = await spawnWren(dataDir, {})
    try {
      const as = (key: string) => fetch(`${server.url}/api/projects/${project.id}/`, { headers: { authorization: `Bearer ${key}` } })
      expect((await as(kept.value)).status).toBe(200)
      expect((await as(leaked.value)).status).toBe(401)
    } finally {
      await server.stop()
    }
  }, 180_000) // seven CLI runs, each a process that opens chDB
})
