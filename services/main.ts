// The `wren` command: start the server, or manage projects, keys and dead letters (runtime/cli.ts).
import pino from 'pino'
import { loadConfig, parseRoles, printConfig, usageVariables, ROLES, type Role } from './platform/config'
import { buildWren } from './app'
import { startWatchdog } from './platform/watchdog'
import { lowerBackgroundThreads } from './platform/thread-priority'
import { describeRuntime } from './runtime/describe'
import { manage } from './runtime/cli'
import { init, INIT_USAGE } from './runtime/init'
import { localUrl, publishControl } from './runtime/control'
import { usesDataDir } from './runtime/storage'
import { engineIdle } from './platform/clickhouse'
import { setupPath } from './accounts/setup'

const USAGE = `usage:
  wren start                                   start Wren in embedded mode (the default)
  wren all | capture | ingest | api | decide | recordings
                                               run one role (cluster mode: any number of each),
                                               or several: wren ingest,api; 'all' is what start runs
  wren roles                                   what each role runs: its streams, route groups and jobs,
                                               the streams' topics and consumer groups, and the order
                                               each process stops its parts in
  wren projects create NAME                    create a project, print its project API key
  wren projects list
  wren keys create --scopes a:read,b:write [--projects 1,2] [--label L]
                                               create a personal API key, print it once
  wren keys list                               list personal API keys (masked), one JSON line each
  wren keys revoke ID                          revoke a key (a running cluster drops it within ~1 s)
  wren users create --email E [--role owner|admin|member] [--name N]
                                               add a member who signs in with the password read
                                               from standard input (an owner waiting for setup is set up)
  wren dead-letters list [--limit N]           messages ingestion could not handle, newest first
  wren dead-letters replay --id ID [--id ID…] | --all
                                               append them to the log again (each is replayed once)
  projects, keys, users and dead-letters work on a stopped data directory, and while Wren runs on it (through its API)
  wren config                                  the configuration in effect (keys masked) and which values are defaults
${INIT_USAGE}
${usageVariables()}`

async function main(argv: string[]): Promise<number> {
  const [command] = argv
  if (command === 'config') return printConfig()
  if (command === 'init') return init(argv.slice(1))
  const config = loadConfig()
  if (command === 'start' || command === undefined) return start()
  if (command.split(',').every((r) => (ROLES as readonly string[]).includes(r))) return start(parseRoles(command))
  if (command === 'roles') return (console.log(describeRuntime()), 0)
  if (['projects', 'keys', 'users', 'dead-letters'].includes(command)) return manage(config, argv, USAGE)
  console.error(USAGE)
  return command === 'help' || command === '--help' ? 0 : 2

  async function start(roles?: Role[]): Promise<number> {
    const logger = pino({ level: config.logLevel })
    if (config.backgroundNice > 0) await lowerBackgroundThreads(config.backgroundNice)
    if (config.watchdogMs > 0) startWatchdog(config.watchdogMs)
    const wren = await buildWren(roles ? { ...config, roles } : config, logger)
    await wren.app.listen({ port: config.port, host: config.host })
    // The address bound (HOST, PORT; a port of 0 is the one the system picked), and where this machine reaches it: the
    // same address, or loopback for a wildcard. Not `localhost`, which may name ::1 where Wren does not listen.
    const bound = wren.app.server.address()
    const address = localUrl(bound)
    if (wren.bootstrap) {
      console.log(
        [
          '',
          'Wren created a default project on this new data directory.',
          `  project id:        ${wren.bootstrap.projectId}`,
          `  project API key:   ${wren.bootstrap.projectApiKey}   (for the SDKs: posthog.init(key, { api_host: '${address}' }))`,
          `  personal API key:  ${wren.bootstrap.personalApiKey}   (the owner's, for scripts and the management API; shown once, stored hashed)`,
          '',
        ].join('\n'),
      )
    }
    if (wren.setupToken)
      console.log(
        [
          '',
          `Set up the owner's account (email and password): ${address}${setupPath(wren.setupToken)}`,
          '  The link works once: each start prints it again until the owner has used it.',
          '  Then sign in at the web app (Settings has the snippet for your site) and invite your team from Members.',
          '',
        ].join('\n'),
      )
    const storage = `${config.kafka ? `kafka: ${config.kafka.brokers.join(',')}` : `log: ${config.dataDir}`}, ${config.clickhouse ? `clickhouse: ${config.clickhouse.url}` : `chdb: ${config.dataDir}`}`
    const serves = !roles || roles.includes('all') || roles.includes('api')
    // Who reaches it: this machine only, every interface, or the one address HOST names.
    const where = bound && typeof bound === 'object' ? `${bound.address}:${bound.port}` : String(bound)
    const host = bound && typeof bound === 'object' ? bound.address : config.host
    const reach = ['0.0.0.0', '::'].includes(host)
      ? 'every interface'
      : /^127\./.test(host) || host === '::1'
        ? 'this machine only'
        : 'that address only'
    console.log(
      `Wren (${(roles ?? ['all']).join(',')}) is listening on ${where}, ${reach} (${storage})${serves ? `; web app at ${address}/` : ''}`,
    )
    // The CLI on this data directory runs its commands through this process (runtime/control.ts).
    const unpublish =
      serves && usesDataDir(config)
        ? await publishControl(config.dataDir, {
            url: address,
            pid: process.pid,
            key: wren.projects.createProcessKey(),
          })
        : async () => {}
    let stopping = false
    const stop = async (signal: string) => {
      if (stopping) return
      stopping = true
      logger.info({ signal }, 'shutting down')
      // Whatever hangs (a connection, a batch, the storage), the process ends: a supervisor can restart it.
      // Never under a chDB call, though: the engine runs in this process, and exiting mid-write crashes it.
      // One still under way after a second timeout is left like a kill -9 would (what the log replays).
      setTimeout(() => {
        logger.error(
          { signal, timeoutMs: config.shutdown.timeoutMs },
          'shutdown did not finish in time (WREN_SHUTDOWN_TIMEOUT_MS): exiting with code 1 once no storage call is under way',
        )
        setTimeout(() => {
          logger.error('a storage call is still under way: killing the process')
          process.kill(process.pid, 'SIGKILL')
        }, config.shutdown.timeoutMs).unref()
        void engineIdle(wren.clickhouse).then(() => process.exit(1))
      }, config.shutdown.timeoutMs)
      // First, so that a CLI waits for the next process rather than calling this one as it stops.
      await unpublish().catch((err: unknown) => logger.warn({ err }, 'removing the control file failed'))
      await wren.close()
      process.exit(0)
    }
    process.on('SIGINT', () => void stop('SIGINT'))
    process.on('SIGTERM', () => void stop('SIGTERM'))
    if (config.failpoints.oomAfterMs !== null) setTimeout(runOutOfHeap, config.failpoints.oomAfterMs)
    return -1 // keep running
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
