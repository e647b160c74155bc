// A real Apache Kafka broker (KRaft, one node on loopback, a temp log dir) for tests, run from Maven
// Central's jars with the machine's Java: infra/kafka/fetch-jars.sh resolves them once into
// ~/.cache/wren/kafka-<version>. No Docker engine runs on these machines, so nothing here is a container.
//
// One broker serves a whole run of the kafka group: ./run-setup.ts starts it beside the build (a JVM start is
// ~5 s of CPU and 5–20 s of waiting, once rather than once per file) and stops it after the last file. Each file
// keeps to its own topics and consumer groups through Wren's KAFKA_TOPIC_PREFIX (a prefix of its own, see
// kafkaForThisFile), so the files stay as independent as with a broker each, and deletes its topics when done.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { homedir, tmpdir } from 'node:os'
import path from 'node:path'
import { Kafka, logLevel } from 'kafkajs'
import { endsWithThisProcess } from './children'
import { prepared } from './wren'

const repoRoot = path.resolve(import.meta.dirname, '../..')
const KAFKA_VERSION = process.env.KAFKA_VERSION ?? '3.9.0'
const cacheDir =
  process.env.WREN_KAFKA_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'wren', `kafka-${KAFKA_VERSION}`)

/** Why Kafka tests cannot run here, or null when they can (Java, and the cached jars or Maven to fetch them). */
export function kafkaUnavailableReason(): string | null {
  if (spawnSync('java', ['-version']).status !== 0) return 'no Java runtime (java) on PATH'
  if (existsSync(path.join(cacheDir, '.complete'))) return null
  if (spawnSync('mvn', ['-v']).status !== 0) return `no Maven (mvn) to fetch the Kafka ${KAFKA_VERSION} jars and none cached in ${cacheDir}`
  return null
}

export interface KafkaBroker {
  brokers: string
  stop(): Promise<void>
}

/** A test file's part of a broker: its own topic and group names, and the environment that gives Wren them. */
export interface FileKafka {
  brokers: string
  /** Before every topic and group name this file uses (what KAFKA_TOPIC_PREFIX gives a Wren). */
  topicPrefix: string
  /** KAFKA_BROKERS and KAFKA_TOPIC_PREFIX, for a Wren of this file. */
  env: { KAFKA_BROKERS: string; KAFKA_TOPIC_PREFIX: string }
  /** Deletes this file's topics (the run's broker goes on) or stops the broker this file started. */
  stop(): Promise<void>
}

/**
 * The run's broker (./run-setup.ts), once it is up, under a topic prefix of this file's own; outside a vitest run
 * of the kafka group (a script), a broker of this file's own.
 */
export async function kafkaForThisFile(): Promise<FileKafka> {
  const topicPrefix = `f${randomBytes(4).toString('hex')}-`
  const run = await prepared('kafka')
  let brokers: string
  let stop: () => Promise<void>
  if (run) {
    brokers = (await readFile(run, 'utf8')).trim()
    stop = () => deleteTopics(brokers, topicPrefix)
  } else ({ brokers, stop } = await startKafka())
  return { brokers, topicPrefix, env: { KAFKA_BROKERS: brokers, KAFKA_TOPIC_PREFIX: topicPrefix }, stop }
}

async function deleteTopics(brokers: string, prefix: string): Promise<void> {
  const admin = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING }).admin()
  await admin.connect()
  try {
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix))
    if (topics.length) await admin.deleteTopics({ topics })
  } finally {
    await admin.disconnect()
  }
}

/** Starts a broker of its own (the run's, in ./run-setup.ts; a file's, outside a run). */
export async function startKafka(): Promise<KafkaBroker> {
  const fetched = spawnSync('bash', [path.join(repoRoot, 'infra/kafka/fetch-jars.sh')], {
    encoding: 'utf8',
    env: { ...process.env, KAFKA_VERSION, WREN_KAFKA_CACHE: cacheDir },
  })
  if (fetched.status !== 0) throw new Error(`fetching the Kafka jars failed:\n${fetched.stderr}`)
  const libs = fetched.stdout.trim().split('\n').pop()!
  const dir = await mkdtemp(path.join(tmpdir(), 'wren-kafka-'))
  const [brokerPort, controllerPort] = [await freePort(), await freePort()]
  const template = await readFile(path.join(repoRoot, 'infra/kafka/server.properties'), 'utf8')
  const props = template
    .replaceAll('${BROKER_PORT}', String(brokerPort))
    .replaceAll('${CONTROLLER_PORT}', String(controllerPort))
    .replaceAll('${LOG_DIR}', path.join(dir, 'data'))
  await writeFile(path.join(dir, 'server.properties'), props)
  await writeFile(
    path.join(dir, 'log4j.properties'),
    `log4j.rootLogger=WARN, file\nlog4j.appender.file=org.apache.log4j.FileAppender\nlog4j.appender.file.File=${path.join(dir, 'broker.log')}\nlog4j.appender.file.layout=org.apache.log4j.PatternLayout\nlog4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n\n`,
  )
  const jvm = [
    '-Xms256m',
    '-Xmx768m',
    '-XX:TieredStopAtLevel=1',
    `-Dlog4j.configuration=file:${path.join(dir, 'log4j.properties')}`,
    '-cp',
    `${libs}/*`,
  ]
  const clusterId = randomClusterId()
  // Not spawnSync: in ./run-setup.ts this runs in vitest's main process, which serves the test processes meanwhile.
  const format = await new Promise<{ status: number | null; output: string }>((resolve) => {
    let output = ''
    const child = spawn('java', [...jvm, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', path.join(dir, 'server.properties')])
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    child.on('error', (err) => resolve({ status: null, output: String(err) }))
    child.on('close', (status) => resolve({ status, output }))
  })
  if (format.status !== 0) throw new Error(`kafka storage format failed:\n${format.output}`)

  let output = ''
  const child: ChildProcess = endsWithThisProcess(
    spawn('java', [...jvm, 'kafka.Kafka', path.join(dir, 'server.properties')], { stdio: ['ignore', 'pipe', 'pipe'] }),
  )
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const brokers = `127.0.0.1:${brokerPort}`
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
    await exited
    clearTimeout(timer)
    await rm(dir, { recursive: true, force: true })
  }
  try {
    const admin = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin()
    const deadline = Date.now() + 60_000
    for (;;) {
      if (child.exitCode !== null) throw new Error(`kafka broker exited with ${child.exitCode}:\n${output}`)
      try {
        await admin.connect()
        await admin.describeCluster()
        await admin.disconnect()
        break
      } catch {
        if (Date.now() > deadline) throw new Error(`kafka broker did not start within 60 s:\n${output}`)
        await new Promise((r) => setTimeout(r, 250))
      }
    }
  } catch (err) {
    await stop()
    throw err
  }
  return { brokers, stop }
}

/** A KRaft cluster id as `kafka-storage random-uuid` prints it (16 random bytes, base64url; never a leading '-'), without starting a JVM for it. */
function randomClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url')
    if (!id.startsWith('-')) return id
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}
