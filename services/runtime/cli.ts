// The CLI's management commands: `wren projects|keys|users|dead-letters`. When a Wren owns the data directory they
// run through its API, with the key of its control file (control.ts); otherwise the CLI opens storage itself,
// the one way the server does (storage.ts), and builds the stores as the server builds them (stores.ts).
// Either way a command prints the same JSON lines.
import { parseArgs } from 'node:util'
import pino from 'pino'
import type { Config } from '../platform/config'
import { systemClock } from '../platform/clock'
import { DataDirLockedError } from '../platform/lock'
import { Metrics } from '../platform/metrics'
import { isValidScope } from '../platform/http/auth'
import { serializeKey } from '../projects/key-routes'
import { LEVELS, roleOf, type Role } from '../accounts/roles'
import { hashPassword, MIN_PASSWORD_LENGTH } from '../accounts/passwords'
import { normalEmail } from '../accounts/store'
import { serializeDeadLetter } from '../dead-letters/routes'
import type { ReplaySelection } from '../dead-letters/store'
import { CONTROL_FILE, readControl, type Control } from './control'
import { Lifecycle } from './lifecycle'
import { Roles } from './roles'
import { openStorage, usesDataDir } from './storage'
import { Stores } from './stores'

type Line = Record<string, unknown>

type Command =
  | { run: 'projects create'; name: string }
  | { run: 'projects list' }
  | { run: 'keys create'; label: string; scopes: string[]; scopedTeams: number[] }
  | { run: 'keys list' }
  | { run: 'keys revoke'; id: string }
  | { run: 'dead-letters list'; limit: number }
  | { run: 'dead-letters replay'; selection: ReplaySelection }
  | { run: 'users create'; email: string; level: number; firstName: string }

/** What each command does, on storage opened here or through a running Wren's API. */
interface Management {
  createProject(name: string): Promise<Line>
  listProjects(): Promise<Line[]>
  createKey(input: { label: string; scopes: string[]; scopedTeams: number[] }): Promise<Line>
  listKeys(): Promise<Line[]>
  revokeKey(id: string): Promise<boolean>
  listDeadLetters(limit: number): Promise<Line[]>
  replay(selection: ReplaySelection): Promise<{ replayed: number; ids: string[] }>
  createUser(input: { email: string; password: string; level: number; firstName: string }): Promise<Line>
}

/** Runs `wren <what> <action> <args…>`; returns the exit code. */
export async function manage(config: Config, argv: string[], usage: string): Promise<number> {
  const command = parseCommand(argv)
  if (typeof command === 'string') {
    console.error(command || usage)
    return 2
  }
  // The CLI's own log goes to stderr: stdout is the commands' JSON lines.
  const logger = pino({ level: 'warn' }, pino.destination({ dest: 2, sync: true }))
  const running = usesDataDir(config) ? await answeringControl(config.dataDir) : null
  if (running) return run(command, overApi(running))
  const lifecycle = new Lifecycle(logger)
  try {
    let management: Management
    try {
      management = await onStorage(config, lifecycle, logger)
    } catch (err) {
      if (!(err instanceof DataDirLockedError)) throw err
      // Held by a Wren that has not published its control file yet (starting), or no longer does (stopping).
      const control = await waitForControl(config.dataDir, config.cliWaitMs)
      if (!control) {
        console.error(
          `${err.message}\nThat process does not answer the CLI (no live ${CONTROL_FILE}): it may be starting or stopping, or not serve the API (role api). Try again in a moment.`,
        )
        return 1
      }
      management = overApi(control)
    }
    return await run(command, management)
  } finally {
    await lifecycle.stop()
  }
}

/** The command, or what to print before exiting with 2 ('' for the usage). */
function parseCommand([what, action, ...args]: string[]): Command | string {
  if (what === 'projects' && action === 'create' && args[0]) return { run: 'projects create', name: args.join(' ') }
  if (what === 'projects' && action === 'list') return { run: 'projects list' }
  if (what === 'keys' && action === 'create') {
    const { values } = parseArgs({ args, options: { scopes: { type: 'string' }, projects: { type: 'string' }, label: { type: 'string' } } })
    const scopes = (values.scopes ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
    const bad = scopes.filter((s) => !isValidScope(s))
    if (scopes.length === 0 || bad.length)
      return `--scopes needs a comma-separated list like person:read,insight:read or *${bad.length ? ` (unknown: ${bad.join(', ')})` : ''}`
    const scopedTeams = (values.projects ?? '').split(',').filter(Boolean).map(Number)
    return { run: 'keys create', label: values.label ?? 'cli', scopes, scopedTeams }
  }
  if (what === 'keys' && action === 'list') return { run: 'keys list' }
  if (what === 'keys' && action === 'revoke' && args[0]) return { run: 'keys revoke', id: args[0] }
  if (what === 'users' && action === 'create') {
    const { values } = parseArgs({ args, options: { email: { type: 'string' }, role: { type: 'string' }, name: { type: 'string' } } })
    const role = values.role ?? 'member'
    if (!values.email || !/^[^\s@]+@[^\s@]+$/.test(values.email)) return '--email needs an email address'
    if (!(role in LEVELS)) return `--role is one of ${Object.keys(LEVELS).join(', ')}`
    return { run: 'users create', email: values.email, level: LEVELS[role as Role], firstName: values.name ?? '' }
  }
  if (what === 'dead-letters') {
    const { values } = parseArgs({
      args,
      options: { id: { type: 'string', multiple: true }, all: { type: 'boolean' }, limit: { type: 'string' } },
    })
    if (action === 'list') {
      const limit = Number(values.limit ?? 100)
      return { run: 'dead-letters list', limit: Number.isInteger(limit) && limit > 0 ? limit : 100 }
    }
    if (action === 'replay' && values.all) return { run: 'dead-letters replay', selection: { all: true } }
    if (action === 'replay' && values.id?.length) return { run: 'dead-letters replay', selection: { ids: values.id } }
  }
  return ''
}

async function run(command: Command, management: Management): Promise<number> {
  const print = (line: Line) => console.log(JSON.stringify(line))
  switch (command.run) {
    case 'projects create':
      print(await management.createProject(command.name))
      return 0
    case 'projects list':
      for (const project of await management.listProjects()) print(project)
      return 0
    case 'keys create':
      print(await management.createKey(command))
      return 0
    case 'keys list':
      for (const key of await management.listKeys()) print(key)
      return 0
    case 'keys revoke':
      if (!(await management.revokeKey(command.id))) {
        console.error(`No personal API key with id ${command.id} (wren keys list shows them).`)
        return 1
      }
      print({ id: command.id, revoked: true })
      return 0
    case 'dead-letters list':
      for (const letter of await management.listDeadLetters(command.limit)) print(letter)
      return 0
    case 'dead-letters replay':
      print(await management.replay(command.selection))
      return 0
    case 'users create': {
      const password = await passwordFromStdin()
      if (password.length < MIN_PASSWORD_LENGTH) {
        console.error(`The password (read from standard input) needs at least ${MIN_PASSWORD_LENGTH} characters.`)
        return 2
      }
      print(await management.createUser({ ...command, password }))
      return 0
    }
  }
}

/**
 * No Wren owns the data directory (or, with a ClickHouse server and Kafka, none is used): storage opened here,
 * stopped with `lifecycle`. A process that runs no role: in cluster mode the running api processes hand out
 * new ids, and hear this one's changes on the log.
 */
async function onStorage(config: Config, lifecycle: Lifecycle, logger: pino.Logger): Promise<Management> {
  const storage = await openStorage(config, lifecycle, { clientId: 'wren-cli', logger })
  const stores = new Stores({ config, logger, clock: systemClock, storage, metrics: new Metrics(), lifecycle, roles: new Roles([]) })
  const projectLine = (p: { id: number; name: string; apiToken: string }) => ({ id: p.id, name: p.name, api_token: p.apiToken })
  return {
    createProject: async (name) => projectLine(await (await stores.projects()).createProject({ name })),
    listProjects: async () => (await stores.projects()).list().map(projectLine),
    async createKey(input) {
      const { key, value } = await (await stores.projects()).createPersonalKey(input)
      return { id: key.id, value, scopes: key.scopes, scoped_teams: key.scopedTeams }
    },
    listKeys: async () => (await stores.projects()).listKeys().map(serializeKey),
    revokeKey: async (id) => (await stores.projects()).revokeKey(id),
    async listDeadLetters(limit) {
      const { results } = await (await stores.deadLetters()).list({ limit, offset: 0 })
      return results.map(serializeDeadLetter)
    },
    async replay(selection) {
      const { replayed } = await (await stores.deadLetters()).replay(storage.log, selection)
      return { replayed: replayed.length, ids: replayed }
    },
    async createUser({ email, password, level, firstName }) {
      const accounts = await stores.accounts()
      if (accounts.userByEmail(email)) throw new Error(`A member already has the email ${email}.`)
      const passwordHash = await hashPassword(password)
      // An owner waiting for setup (no password yet) is this one: the keys made before belong to it.
      const waiting = level >= LEVELS.owner ? accounts.owner() : undefined
      const user =
        waiting && !waiting.passwordHash
          ? await accounts.update(waiting.id, { email: normalEmail(email), firstName, passwordHash, setupToken: '' })
          : await accounts.createUser({ email, firstName, passwordHash, level })
      return userLine(user)
    },
  }
}

const userLine = (u: { id: string; email: string; level: number }) => ({ uuid: u.id, email: u.email, role: roleOf(u.level) })

/** The password piped to the CLI (`echo … | wren users create …`, or typed and ended with Ctrl-D), without its last newline. */
async function passwordFromStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Password (then Enter and Ctrl-D): ')
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '')
}

/** A running Wren, through its API (the routes in projects/ and dead-letters/), with its process key. */
function overApi(control: Control): Management {
  const call = async (method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const res = await fetch(control.url + route, {
      method,
      headers: { authorization: `Bearer ${control.key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    })
    const text = await res.text()
    let parsed: unknown = null
    try {
      parsed = text ? JSON.parse(text) : null
    } catch {
      parsed = null
    }
    return { status: res.status, body: parsed }
  }
  const expect = async (status: number, method: string, route: string, body?: unknown): Promise<any> => {
    const res = await call(method, route, body)
    if (res.status !== status)
      throw new Error(
        `Wren (process ${control.pid}, ${control.url}) answered ${method} ${route} with ${res.status}: ${res.body?.detail ?? ''}`,
      )
    return res.body
  }
  const projectLine = (p: { id: number; name: string; api_token: string }) => ({ id: p.id, name: p.name, api_token: p.api_token })
  return {
    createProject: async (name) => projectLine(await expect(201, 'POST', '/api/projects/', { name })),
    listProjects: async () => (await expect(200, 'GET', '/api/projects/')).results.map(projectLine),
    async createKey({ label, scopes, scopedTeams }) {
      const key = await expect(201, 'POST', '/api/personal_api_keys/', { label, scopes, scoped_teams: scopedTeams })
      return { id: key.id, value: key.value, scopes: key.scopes, scoped_teams: key.scoped_teams }
    },
    listKeys: async () => (await expect(200, 'GET', '/api/personal_api_keys/')).results,
    async revokeKey(id) {
      const res = await call('DELETE', `/api/personal_api_keys/${encodeURIComponent(id)}/`)
      if (res.status === 404) return false
      if (res.status !== 204) throw new Error(`Wren (process ${control.pid}) answered ${res.status}: ${res.body?.detail ?? ''}`)
      return true
    },
    async listDeadLetters(limit) {
      // The API pages (at most 1000 at a time); the CLI prints the newest `limit`.
      const letters: Line[] = []
      while (letters.length < limit) {
        const page = Math.min(1000, limit - letters.length)
        const { results } = await expect(200, 'GET', `/api/dead_letters/?limit=${page}&offset=${letters.length}`)
        letters.push(...results)
        if (results.length < page) break
      }
      return letters
    },
    replay: async (selection) => expect(200, 'POST', '/api/dead_letters/replay/', selection),
    // Through the API as a person would: an invitation from the owner (the process key's user), accepted with the password.
    async createUser({ email, password, level, firstName }) {
      const invite = await expect(201, 'POST', '/api/organizations/@current/invites/', {
        target_email: email,
        level,
        first_name: firstName,
      })
      const token = new URL(invite.invite_url).pathname.split('/').filter(Boolean).at(-1)
      const user = await expect(201, 'POST', `/api/signup/${token}/`, { password })
      return userLine({ id: user.uuid, email: user.email, level: user.organization.membership_level })
    },
  }
}

/** The control file of a live Wren whose API takes its key; null when there is none, or it is stale. */
async function answeringControl(dataDir: string): Promise<Control | null> {
  const control = await readControl(dataDir)
  if (!control) return null
  const status = await fetch(`${control.url}/api/projects/`, {
    headers: { authorization: `Bearer ${control.key}` },
    signal: AbortSignal.timeout(5_000),
  }).then(
    async (res) => (await res.arrayBuffer(), res.status),
    () => null,
  )
  return status === 200 ? control : null
}

/** The control file of the process holding the data directory, waiting up to `waitMs` for it to publish one (it is starting). */
async function waitForControl(dataDir: string, waitMs: number): Promise<Control | null> {
  const deadline = Date.now() + waitMs
  for (;;) {
    const control = await answeringControl(dataDir)
    if (control || Date.now() > deadline) return control
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}
