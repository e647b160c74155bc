// A static cohort from an uploaded CSV (issue 12, item 18), read by @fastify/multipart and csv-parse as
// PostHog reads it: which column holds the ids, header rows, blank lines, a BOM, quoted values; bad files
// are a 400 naming `csv`, an oversized one a 413.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'

describe('static cohort CSV upload', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let cohorts: string
  beforeAll(async () => {
    t = await startWren()
    call = api(t)
    cohorts = `/api/projects/${t.projectId}/cohorts/`
    const now = new Date().toISOString()
    await captureBatch(
      t,
      ['u1', 'u2', 'smith, jane', 'u3'].map((id) => ({
        event: '$identify',
        distinct_id: id,
        timestamp: now,
        properties: { $set: { email: `${id.replace(/\W/g, '')}@example.com` } },
      })),
    )
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  const boundary = '----wren-test-boundary'
  /** POSTs a multipart body built by hand: each part its Content-Disposition parameters and content. */
  const upload = async (parts: Array<[disposition: string, content: string | Buffer]>, method = 'POST', url = cohorts) => {
    const chunks = parts.flatMap(([disposition, content]) => [
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; ${disposition}\r\n\r\n`),
      Buffer.from(content),
      Buffer.from('\r\n'),
    ])
    const res = await fetch(t.url + url, {
      method,
      headers: { authorization: `Bearer ${t.personalKey}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]),
    })
    return { status: res.status, body: (await res.json()) as any }
  }
  const createFrom = (csv: string | Buffer) =>
    upload([
      ['name="name"', 'Uploaded'],
      ['name="is_static"', 'true'],
      ['name="csv"; filename="people.csv"', csv],
    ])
  const members = async (cohortId: number): Promise<string[]> => {
    const filter = encodeURIComponent(JSON.stringify([{ type: 'cohort', key: 'id', value: cohortId }]))
    const res = await call('GET', `/api/projects/${t.projectId}/persons/?properties=${filter}`)
    expect(res.status).toBe(200)
    return res.body.results.map((p: { distinct_ids: string[] }) => p.distinct_ids[0]).sort()
  }

  it('reads a part’s name from its name parameter, not from a filename that contains "name="', async () => {
    const res = await upload([
      ['name="name"', 'Tricky'],
      ['name="is_static"', 'true'],
      ['filename="name=distinct_id"; name="csv"', 'u1\r\nu2\r\n'],
    ])
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(res.body).toMatchObject({ name: 'Tricky', is_static: true, count: 2 })
    expect(await members(res.body.id)).toEqual(['u1', 'u2'])
  })

  it('takes quoted values with commas and newlines, and the distinct_id column named by the header', async () => {
    const res = await createFrom(
      'email,distinct_id,note\r\nx@example.com,"smith, jane","a note\r\nover two lines, with ""quotes"""\r\n,u1,\r\n',
    )
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(await members(res.body.id)).toEqual(['smith, jane', 'u1'])
  })

  it('skips a BOM and blank lines; one column without a header is all distinct ids', async () => {
    const res = await createFrom('\uFEFFu1\r\n\r\n  u3  \r\n\r\n')
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(await members(res.body.id)).toEqual(['u1', 'u3'])
  })

  it('reads a one-column file headed email as emails, and person_id before distinct_id before email', async () => {
    const byEmail = await createFrom('Email\nu2@example.com\nnobody@example.com\n')
    expect(byEmail.status, JSON.stringify(byEmail.body)).toBe(201)
    expect(await members(byEmail.body.id)).toEqual(['u2'])

    const persons = await call('GET', `/api/projects/${t.projectId}/persons/?distinct_id=u3`)
    const uuid = persons.body.results[0].uuid as string
    const byPersonId = await createFrom(`distinct_id,person_id\nu1,${uuid}\n`)
    expect(byPersonId.status, JSON.stringify(byPersonId.body)).toBe(201)
    expect(await members(byPersonId.body.id)).toEqual(['u3'])
  })

  it('adds a CSV’s members to a static cohort on PATCH', async () => {
    const created = await call('POST', cohorts, { name: 'Listed', is_static: true, distinct_ids: ['u1'] })
    const res = await upload([['name="csv"; filename="more.csv"', 'distinct_id\nu2\n']], 'PATCH', `${cohorts}${created.body.id}/`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(await members(created.body.id)).toEqual(['u1', 'u2'])
  })

  it('answers a bad file with a 400 naming csv', async () => {
    const cases: Array<[string | Buffer, RegExp]> = [
      ['plan,country\npro,FR\n', /person_id, distinct_id or email/],
      ['distinct_id\n"u1\n', /not valid/],
      ['\n\n', /empty/],
      ['distinct_id\n\n', /no person ids/],
      [Buffer.from([0x75, 0x31, 0xff, 0xfe, 0x0a]), /UTF-8/],
    ]
    for (const [csv, detail] of cases) {
      const res = await createFrom(csv)
      expect(res.status, JSON.stringify(res.body)).toBe(400)
      expect(res.body).toMatchObject({ type: 'validation_error', code: 'invalid_csv', attr: 'csv' })
      expect(res.body.detail).toMatch(detail)
    }
    const broken = await fetch(t.url + cohorts, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.personalKey}`, 'content-type': 'multipart/form-data' },
      body: 'no boundary',
    })
    expect(broken.status).toBe(400)
    expect(await broken.json()).toMatchObject({ type: 'validation_error', attr: null })
  })

  it('answers an upload over 50 MiB with a 413 naming csv', async () => {
    const res = await createFrom(Buffer.alloc(50 * 1024 * 1024 + 10, 'u\n'))
    expect(res.status).toBe(413)
    expect(res.body).toMatchObject({ code: 'payload_too_large', attr: 'csv' })
  })
})
