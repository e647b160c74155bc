// `wren init`: the secrets a deployment needs, freshly generated, written where docker compose reads them
// (.env beside docker-compose.yml): the bootstrap project and personal API keys, and the password of the
// ClickHouse user Wren connects as. An existing file is never overwritten (its keys may already be in use:
// an empty data directory is bootstrapped with them) unless --force says so.
import { randomBytes } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../projects/store'

export const INIT_USAGE =
  '  wren init [--file .env] [--force]            write .env with fresh keys and a ClickHouse password (for docker compose)'

export async function init(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { file: { type: 'string', default: '.env' }, force: { type: 'boolean', default: false } },
  })
  const file = path.resolve(values.file!)
  const text = [
    `# Written by \`wren init\` on ${new Date().toISOString()}: keep it secret. docker compose reads it (docker-compose.yml).`,
    '# The keys bootstrap an empty database: changing them later changes nothing (use `wren keys` or the API).',
    `WREN_PROJECT_API_KEY=${generateKey(PROJECT_KEY_PREFIX)}`,
    `WREN_PERSONAL_API_KEY=${generateKey(PERSONAL_KEY_PREFIX)}`,
    `CLICKHOUSE_PASSWORD=${randomBytes(24).toString('base64url')}`,
    '',
  ].join('\n')
  try {
    await writeFile(file, text, { mode: 0o600, flag: values.force ? 'w' : 'wx' })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    console.error(`wren init: ${file} exists; its keys may be in use. Keep it, or run wren init --force to replace it.`)
    return 1
  }
  console.log(
    `wren init: wrote ${file} (fresh project and personal API keys, a ClickHouse password). Next: docker compose up -d --build --scale capture=2`,
  )
  return 0
}
