// The `wren` command: start the server, or manage projects and keys on a stopped data directory.
import { parseArgs } from 'node:util'
import pino from 'pino'
import { loadConfig, parseRoles, printConfig, usageVariables, ROLES, type Role } from './shared/config'
import { buildWren } from './app'
import { isValidScope } from './shared/http/auth'
import { lockDataDir, DataDirLockedError } from './shared/lock'
import { migrate, openEmbeddedClickHouse, openServerClickHouse } from './shared/clickhouse'
import { ProjectStore } from './projects/store'
import { ClusterConfigLog, LocalConfigLog, type ConfigLog } from './config/config-log'
import { serializeKey } from './projects/key-routes'
import { systemClock } from './shared/clock'
import path from 'node:path'
import type { Log } from './shared/log/log'
import { openEmbeddedLog } from './shared/log/embedded/embedded-log'
import { openKafkaLog } from './shared/log/kafka/kafka-log'
import { DeadLetterStore } from './dead-letters/store'
import { serializeDeadLetter } from './dead-letters/routes'
import { startWatchdog } from './shared/watchdog'

const USAGE = `usage:
  wren start                                   start Wren in embedded mode (the default)
  wren all | capture | ingest | api | decide | recordings
                                               run one role (cluster mode: any number of each),
                                               or several: wren ingest,api; 'all' is what start runs
  wren projects create NAME                    create a project, print its project API key
  wren projects list
  wren keys create --scopes a:read,b:write [--projects 1,2] [--label L]
                                               create a personal API key, print it once
  wren keys list                               list personal API keys (masked), one JSON line each
  wren keys revoke ID                          revoke a key (a running cluster drops it within ~1 s)
  wren dead-letters list [--limit N]           messages ingestion could not handle, newest first
  wren dead-letters replay --id ID [--id ID…] | --all
                                               append them to the log again (each is replayed once)
  wren config                                  the configuration in effect (keys masked) and which values are defaults
${usageVariables()}`

async function main(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv
  if (command === 'config') return printConfig()
  const config = loadConfig()
  if (command === 'start' || command === undefined) return start()
  if (command.split(',').every((r) => (ROLES as readonly string[]).includes(r))) return start(parseRoles(command))
  if (command === 'projects' || command === 'keys') return manage(command, sub, rest)
  if (command === 'dead-letters') return deadLetters(sub, rest)
  console.error(USAGE)
  return command === 'help' || command === '--help' ? 0 : 2

  async function start(roles?: Role[]): Promise<number> {
    const logger = pino({ level: config.logLevel })
    if (config.watchdogMs > 0) startWatchdog(config.watchdogMs)
    const wren = await buildWren(roles ? { ...config, roles } : config, logger)
    await wren.app.listen({ port: config.port, host: config.host })
    const address = `http://localhost:${config.port}`
    if (wren.bootstrap) {
      console.log(
        [
          '',
          'Wren created a default project on this new data directory.',
          `  project id:        ${wren.bootstrap.projectId}`,
          `  project API key:   ${wren.bootstrap.projectApiKey}   (for the SDKs: posthog.init(key, { api_host: '${address}' }))`,
          `  personal API key:  ${wren.bootstrap.personalApiKey}   (for the management API and the web app; shown once, stored hashed)`,
          '',
          `Open ${address}/ and sign in with the personal API key: Settings has the snippet for your site.`,
          '',
        ].join('\n'),
      )
    }
    const storage = `${config.kafka ? `kafka: ${config.kafka.brokers.join(',')}` : `log: ${config.dataDir}`}, ${config.clickhouse ? `clickhouse: ${config.clickhouse.url}` : `chdb: ${config.dataDir}`}`
    const serves = !roles || roles.includes('all') || roles.includes('api')
    console.log(`Wren (${(roles ?? ['all']).join(',')}) is listening on ${address} (${storage})${serves ? `; web app at ${address}/` : ''}`)
    let stopping = false
    const stop = async (signal: string) => {
      if (stopping) return
      stopping = true
      logger.info({ signal }, 'shutting down')
      // Whatever hangs (a connection, a batch, the storage), the process ends: a supervisor can restart it.
      setTimeout(() => {
        logger.error(
          { signal, timeoutMs: config.shutdown.timeoutMs },
          'shutdown did not finish in time (WREN_SHUTDOWN_TIMEOUT_MS): exiting with code 1',
        )
        process.exit(1)
      }, config.shutdown.timeoutMs)
      await wren.close()
      process.exit(0)
    }
    process.on('SIGINT', () => void stop('SIGINT'))
    process.on('SIGTERM', () => void stop('SIGTERM'))
    if (config.failpoints.oomAfterMs !== null) setTimeout(runOutOfHeap, config.failpoints.oomAfterMs)
    return -1 // keep running
  }

  async function manage(what: string, action: string | undefined, args: string[]): Promise<number> {
    let unlock: () => Promise<void> = async () => {}
    try {
      // With a ClickHouse server (cluster mode) projects and keys live there, not in the data directory.
      if (!config.clickhouse) unlock = await lockDataDir(config.dataDir)
    } catch (err) {
      if (err instanceof DataDirLockedError) {
        console.error(
          `${err.message}\nWhile Wren runs, use the API instead: POST /api/projects/, POST|GET /api/personal_api_keys/, DELETE /api/personal_api_keys/:id/.`,
        )
        return 1
      }
      throw err
    }
    const client = config.clickhouse ? await openServerClickHouse(config.clickhouse) : await openEmbeddedClickHouse(config.dataDir)
    let log: Log | null = null
    let configLog: ConfigLog | null = null
    try {
      await migrate(client, { cluster: config.clickhouse?.cluster })
      // Cluster mode: the running processes hear the change on the log, and new ids come from their allocator.
      const logger = pino({ level: 'warn' })
      if (config.kafka && config.clickhouse) log = await openKafkaLog({ ...config.kafka, clientId: 'wren-cli' })
      configLog = log ? new ClusterConfigLog(log, client, logger, { allocate: false }) : new LocalConfigLog(client, logger)
      const store = await ProjectStore.load(client, systemClock, configLog)
      if (what === 'projects' && action === 'create' && args[0]) {
        const project = await store.createProject({ name: args.join(' ') })
        console.log(JSON.stringify({ id: project.id, name: project.name, api_token: project.apiToken }))
        return 0
      }
      if (what === 'projects' && action === 'list') {
        for (const p of store.list()) console.log(JSON.stringify({ id: p.id, name: p.name, api_token: p.apiToken }))
        return 0
      }
      if (what === 'keys' && action === 'create') {
        const { values } = parseArgs({
          args,
          options: { scopes: { type: 'string' }, projects: { type: 'string' }, label: { type: 'string' } },
        })
        const scopes = (values.scopes ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
        const bad = scopes.filter((s) => !isValidScope(s))
        if (scopes.length === 0 || bad.length) {
          console.error(
            `--scopes needs a comma-separated list like person:read,insight:read or *${bad.length ? ` (unknown: ${bad.join(', ')})` : ''}`,
          )
          return 2
        }
        const scopedTeams = (values.projects ?? '').split(',').filter(Boolean).map(Number)
        const { key, value } = await store.createPersonalKey({ label: values.label ?? 'cli', scopes, scopedTeams })
        console.log(JSON.stringify({ id: key.id, value, scopes: key.scopes, scoped_teams: key.scopedTeams }))
        return 0
      }
      if (what === 'keys' && action === 'list') {
        for (const k of store.listKeys()) console.log(JSON.stringify(serializeKey(k)))
        return 0
      }
      if (what === 'keys' && action === 'revoke' && args[0]) {
        if (!(await store.revokeKey(args[0]))) {
          console.error(`No personal API key with id ${args[0]} (wren keys list shows them).`)
          return 1
        }
        console.log(JSON.stringify({ id: args[0], revoked: true }))
        return 0
      }
      console.error(USAGE)
      return 2
    } finally {
      await configLog?.stop()
      await log?.close()
      await client.close()
      await unlock()
    }
  }

  /** On a stopped data directory in embedded mode, or with CLICKHOUSE_URL and KAFKA_BROKERS in cluster mode. */
  async function deadLetters(action: string | undefined, args: string[]): Promise<number> {
    const { values } = parseArgs({
      args,
      options: { id: { type: 'string', multiple: true }, all: { type: 'boolean' }, limit: { type: 'string' } },
    })
    if (!(action === 'list' || (action === 'replay' && (values.all || values.id?.length)))) {
      console.error(USAGE)
      return 2
    }
    let unlock: () => Promise<void> = async () => {}
    try {
      // The embedded log and chDB live in the data directory, which one process owns.
      if (!(config.kafka && config.clickhouse)) unlock = await lockDataDir(config.dataDir)
    } catch (err) {
      if (err instanceof DataDirLockedError) {
        console.error(`${err.message}\nWhile Wren runs, use GET /api/dead_letters/ and POST /api/dead_letters/replay/ instead.`)
        return 1
      }
      throw err
    }
    const client = config.clickhouse ? await openServerClickHouse(config.clickhouse) : await openEmbeddedClickHouse(config.dataDir)
    let log: Log | null = null
    try {
      await migrate(client, { cluster: config.clickhouse?.cluster })
      const store = new DeadLetterStore(client, systemClock)
      if (action === 'list') {
        const limit = Number(values.limit ?? 100)
        const { results } = await store.list({ limit: Number.isInteger(limit) && limit > 0 ? limit : 100, offset: 0 })
        for (const letter of results) console.log(JSON.stringify(serializeDeadLetter(letter)))
        return 0
      }
      log = config.kafka
        ? await openKafkaLog({ ...config.kafka, clientId: 'wren-dead-letters' })
        : await openEmbeddedLog({ dir: path.join(config.dataDir, 'log') })
      const { replayed } = await store.replay(log, values.all ? { all: true } : { ids: values.id ?? [] })
      console.log(JSON.stringify({ replayed: replayed.length, ids: replayed }))
      return 0
    } finally {
      await log?.close()
      await client.close()
      await unlock()
    }
  }
}

/** The failpoint for the watchdog's test: what a decompression bomb did to the heap before it was capped. */
function runOutOfHeap(): void {
  const kept: string[][] = []
  for (;;) kept.push(new Array(1_000_000).fill(String(kept.length)))
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code)
  },
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err)
    process.exit(1)
  },
)
