// docker-compose.yml, infra/wren.Dockerfile and infra/Caddyfile as a user meets them: compose validates with
// Debian's docker-compose, only the proxy publishes a port, images are pinned, ClickHouse has a password,
// the commands in the file are the README's, the proxy's limits and paths are Wren's own, and caddy
// validates the proxy's configuration. No Docker engine runs here: nothing is started.
import { execFileSync, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import semver from 'semver'
import { BODY_LIMIT as CAPTURE_BODY_LIMIT, CAPTURE_PATHS } from '../../services/capture/routes'
import { RECORDING_PATHS } from '../../services/capture/recording-intake'
import { BODY_LIMIT as DECIDE_BODY_LIMIT } from '../../services/decide/routes'
import { MAX_UPLOAD_BYTES } from '../../services/cohorts/upload'
import { loadConfig } from '../../services/platform/config'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'
import { skipReason } from '../support/skip'
import { caddyMissing } from './caddy'

const repoRoot = path.resolve(import.meta.dirname, '../..')
const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8')
const WREN_ROLES = ['capture', 'ingest', 'api', 'decide', 'recordings']

const composeMissing =
  spawnSync('docker-compose', ['version'], { encoding: 'utf8' }).status === 0 &&
  spawnSync('python3', ['-c', 'import yaml'], { encoding: 'utf8' }).status === 0
    ? null
    : "Debian's docker-compose is not installed (apt-get install docker-compose)"

const secrets = {
  WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX),
  WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX),
  CLICKHOUSE_PASSWORD: 'a-password-wren-init-made',
}

/** `docker-compose config` on the repository's file with `env`, as parsed JSON (through python3-yaml, docker-compose's own YAML). */
function composeConfig(env: Record<string, string>): { status: number; stderr: string; config: any } {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(WREN|CLICKHOUSE)_/.test(name)))
  const run = spawnSync('docker-compose', ['-f', 'docker-compose.yml', 'config'], {
    cwd: repoRoot,
    env: { ...base, ...env },
    encoding: 'utf8',
  })
  if (run.status !== 0) return { status: run.status ?? 1, stderr: run.stderr, config: null }
  const json = execFileSync('python3', ['-c', 'import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))'], {
    input: run.stdout,
    encoding: 'utf8',
  })
  return { status: 0, stderr: run.stderr, config: JSON.parse(json) }
}

describe.skipIf(skipReason('the compose file test', composeMissing))('docker-compose.yml', () => {
  it('validates, and publishes one port: the proxy’s', () => {
    const { status, stderr, config } = composeConfig(secrets)
    expect(status, stderr).toBe(0)
    expect(Object.keys(config.services).sort()).toEqual(['clickhouse', 'kafka', 'proxy', ...WREN_ROLES].sort())
    const publishing = Object.entries(config.services as Record<string, { ports?: unknown[] }>)
      .filter(([, service]) => service.ports?.length)
      .map(([name]) => name)
    expect(publishing).toEqual(['proxy'])
    // --scale works for every role: no fixed container name, no host port.
    for (const role of WREN_ROLES) {
      expect(config.services[role].container_name).toBeUndefined()
      expect(config.services[role].command).toEqual([role])
    }
  })

  it('pins every image it pulls, gives ClickHouse a password, and has healthchecks and volumes', () => {
    const { config } = composeConfig(secrets)
    for (const name of ['proxy', 'kafka', 'clickhouse']) {
      expect(config.services[name].image, name).toMatch(/:\d+\.\d+\.\d+(\.\d+)?$/)
      expect(config.services[name].healthcheck?.test, name).toBeTruthy()
      expect(config.services[name].volumes?.length, name).toBeGreaterThan(0)
    }
    expect(config.services.clickhouse.environment.CLICKHOUSE_PASSWORD).toBe(secrets.CLICKHOUSE_PASSWORD)
    for (const role of WREN_ROLES) {
      expect(config.services[role].build.dockerfile).toBe('infra/wren.Dockerfile')
      expect(config.services[role].environment).toMatchObject({
        CLICKHOUSE_USER: config.services.clickhouse.environment.CLICKHOUSE_USER,
        CLICKHOUSE_PASSWORD: secrets.CLICKHOUSE_PASSWORD,
        WREN_PROJECT_API_KEY: secrets.WREN_PROJECT_API_KEY,
      })
      // What compose gives a role is a configuration Wren starts with (keys, the proxy's trust, ClickHouse).
      expect(() => loadConfig(config.services[role].environment)).not.toThrow()
      // The roles' health is the image's HEALTHCHECK.
      expect(config.services[role].healthcheck).toBeUndefined()
    }
    expect(Object.keys(config.volumes).sort()).toEqual(['caddy-data', 'clickhouse-data', 'kafka-data'])
  })

  it('refuses to run without the secrets wren init writes', () => {
    const { status, stderr } = composeConfig({})
    expect(status).not.toBe(0)
    expect(stderr).toContain('run npx wren init to write .env')
  })
})

describe('the deployment files', () => {
  it('give the README’s commands, word for word', () => {
    const commands = [...read('docker-compose.yml').matchAll(/^# {3}(\S[^#\n]*?)\s*(?:#.*)?$/gm)].map((m) => m[1])
    expect(commands).toEqual(['npx wren init', 'docker compose up -d --build --scale capture=2'])
    for (const command of commands) expect(read('docs/cluster.md')).toContain(command)
    for (const command of commands) expect(read('README.md')).toContain(command)
  })

  it('build an image of the compiled Wren on Node 22, run as a non-root user, with a health check on /_readyz', () => {
    const dockerfile = read('infra/wren.Dockerfile')
    const stages = dockerfile.match(/^FROM .*/gm)!
    expect(stages.every((from) => from.startsWith('FROM node:22-'))).toBe(true)
    expect(dockerfile).toMatch(/^COPY web \.\/web$/m)
    expect(dockerfile).toMatch(/^RUN npm run build$/m)
    expect(dockerfile).toMatch(/^USER node$/m)
    expect(dockerfile).toMatch(/^HEALTHCHECK [\s\S]*\/_readyz/m)
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", "dist\/services\/main\.js"\]$/m)
    // What runs is node on the build's JavaScript: tsx is the build stage's only.
    const runStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '))
    expect(
      runStage
        .split('\n')
        .filter((line) => !line.startsWith('#'))
        .join('\n'),
    ).not.toContain('tsx')
  })

  it('keep the build context and git free of secrets and local data, and the image listening on every interface', () => {
    const ignored = (file: string) =>
      read(file)
        .split('\n')
        .map((line) => line.trim())
    for (const entry of ['node_modules', 'data', '.env', 'test-artifacts', '.git']) expect(ignored('.dockerignore')).toContain(entry)
    expect(ignored('.gitignore')).toContain('.env')
    // Wren's own default is this machine only (the start line's test: test/runtime/cli-running.test.ts); in a container that
    // would be the container alone, so the image sets every interface, and the compose file leaves it so.
    expect(loadConfig({}).host).toBe('127.0.0.1')
    const dockerfile = read('infra/wren.Dockerfile')
    expect(dockerfile.slice(dockerfile.lastIndexOf('\nFROM '))).toMatch(/^ENV .*\bHOST=0\.0\.0\.0\b/m)
    expect(read('docker-compose.yml')).not.toMatch(/\bHOST\b/)
  })

  it('name the Node every dependency allows, in package.json, the README and the image alike', () => {
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node
    // Every version Wren's engines allow, every installed package (runtime or not) allows too.
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { engines?: { node?: string } | string[] }> }
    const narrower = Object.entries(lock.packages)
      .flatMap(([name, p]) => (p.engines && !Array.isArray(p.engines) && p.engines.node ? [[name, p.engines.node]] : []))
      .filter(([, range]) => !semver.subset(engines, range))
    expect(narrower).toEqual([])
    // Node 20 is past its end of life.
    expect(semver.intersects(engines, '20')).toBe(false)
    const lowest = semver.minVersion(engines)!
    expect(read('README.md')).toContain(`Node ${lowest.major} (${lowest.major}.${lowest.minor} or newer)`)
    for (const from of read('infra/wren.Dockerfile').match(/^FROM .*/gm)!) expect(from).toMatch(new RegExp(`^FROM node:${lowest.major}-`))
  })

  it('route every SDK path the roles serve, with their body limits', () => {
    const caddyfile = read('infra/Caddyfile')
    const matcher = (name: string) => caddyfile.match(new RegExp(`^\\s*@${name} path (.*)$`, 'm'))![1].split(' ')
    const handle = (name: string) => caddyfile.slice(caddyfile.indexOf(`handle @${name} {`))
    const maxSize = (block: string) => block.match(/import body_limit (\d+)/)![1]
    for (const p of [...CAPTURE_PATHS, ...RECORDING_PATHS]) expect(matcher('capture')).toEqual(expect.arrayContaining([p, `${p}/*`]))
    expect(matcher('capture')).toContain('/static/*')
    expect(matcher('decide')).toEqual(expect.arrayContaining(['/decide', '/flags', '/flags/*', '/array/*/config', '/array/*/config.js']))
    expect(Number(maxSize(handle('capture'))) * 1024 * 1024).toBe(CAPTURE_BODY_LIMIT)
    expect(Number(maxSize(handle('decide'))) * 1024 * 1024).toBe(DECIDE_BODY_LIMIT)
    expect(Number(maxSize(caddyfile.slice(caddyfile.lastIndexOf('\thandle {')))) * 1024 * 1024).toBe(MAX_UPLOAD_BYTES)
  })

  it.skipIf(skipReason('caddy validate', caddyMissing()))('hold a Caddyfile caddy validates', () => {
    const run = spawnSync('caddy', ['validate', '--config', 'infra/Caddyfile', '--adapter', 'caddyfile'], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      encoding: 'utf8',
    })
    expect(run.status, run.stderr).toBe(0)
    expect(run.stdout + run.stderr).toContain('Valid configuration')
  })
})
