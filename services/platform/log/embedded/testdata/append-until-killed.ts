// Child process for the SIGKILL test in embedded-log.test.ts: appends until killed, printing
// "<appender> <seq>" to stdout after each append is acknowledged (durable).
import { openEmbeddedLog } from '../embedded-log'

const [dir, appenders = '8'] = process.argv.slice(2)
const log = await openEmbeddedLog({ dir, segmentBytes: 64 << 10 })

async function appender(id: number): Promise<void> {
  for (let seq = 0; ; seq++) {
    const value = Buffer.from(`${id}:${seq}:${'x'.repeat(200)}`)
    await log.append('t', [
      { key: String(id), value },
      { key: String(id), value },
    ])
    process.stdout.write(`${id} ${seq}\n`)
  }
}

for (let i = 0; i < Number(appenders); i++) void appender(i)
