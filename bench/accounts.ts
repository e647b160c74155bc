// Accounts benchmark: what a signed-in request costs. GET /api/users/@me/ with a personal API key (looked up in
// memory) and with a session cookie (read from ClickHouse on every request, so a sign-out holds at once in every
// process), one request at a time, beside a hello-world Fastify GET in the same run; and a sign-in, which runs
// scrypt (32 MiB, ~0.25 s of one core by design), beside a wrong password (the same scrypt: no timing hint).
//   node --import tsx bench/accounts.ts [--requests 1000] [--logins 10]
import { randomBytes } from 'node:crypto'
import { median, ms, startHelloWorld, startWrenServer, x } from './support'

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : fallback
}
const requests = arg('requests', 1000)
const logins = arg('logins', 10)

/** Each request's time (ms), one at a time, after 50 unmeasured ones. */
async function latencies(url: string, headers: Record<string, string>, n: number): Promise<number[]> {
  for (let i = 0; i < 50; i++) await (await fetch(url, { headers })).arrayBuffer()
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    const res = await fetch(url, { headers })
    await res.arrayBuffer()
    if (!res.ok) throw new Error(`${url}: ${res.status}`)
    out.push(performance.now() - t0)
  }
  return out
}

const key = `phx_${randomBytes(24).toString('hex')}`
const owner = { email: 'bench@example.com', password: randomBytes(12).toString('hex') }
const [hello, wren] = await Promise.all([
  startHelloWorld(),
  startWrenServer(undefined, { WREN_PERSONAL_API_KEY: key, WREN_OWNER_EMAIL: owner.email, WREN_OWNER_PASSWORD: owner.password }),
])
try {
  const login = async (password: string) => {
    const t0 = performance.now()
    const res = await fetch(`${wren.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: owner.email, password }),
    })
    await res.arrayBuffer()
    return { ms: performance.now() - t0, status: res.status, cookies: res.headers.getSetCookie() }
  }
  const signed = await login(owner.password)
  const cookie = signed.cookies.map((c) => c.split(';')[0]).join('; ')
  const rights: number[] = []
  const wrongs: number[] = []
  // Alternating, and under the failed-login limit (10 per account in 15 minutes).
  for (let i = 0; i < Math.min(logins, 9); i++) {
    rights.push((await login(owner.password)).ms)
    wrongs.push((await login(`wrong ${i}`)).ms)
  }
  const helloMs = median(await latencies(`${hello.url}/_health`, {}, requests))
  const keyMs = median(await latencies(`${wren.url}/api/users/@me/`, { authorization: `Bearer ${key}` }, requests))
  const sessionMs = median(await latencies(`${wren.url}/api/users/@me/`, { cookie }, requests))
  console.log(`\nSigned-in requests, one at a time (${requests} each; medians):`)
  console.log(`  hello-world Fastify GET          ${ms(helloMs)}`)
  console.log(`  GET /api/users/@me/ with a key   ${ms(keyMs)}  (${x(keyMs / helloMs)} hello-world)`)
  console.log(
    `  GET /api/users/@me/ by session   ${ms(sessionMs)}  (${x(sessionMs / helloMs)} hello-world, ${x(sessionMs / keyMs)} the key)`,
  )
  console.log(`Sign-in (POST /api/login, scrypt N=2^15 r=8 p=3; ${rights.length} of each, alternating; medians):`)
  console.log(`  right password  ${ms(median(rights))}`)
  console.log(`  wrong password  ${ms(median(wrongs))}  (${x(median(wrongs) / median(rights))} the right one)`)
} finally {
  await Promise.all([hello.stop(), wren.stop()])
}
