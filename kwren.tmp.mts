import { startKafka } from '/work/wt/speed-kafka/test/support/kafka'
import { spawnWren } from '/work/wt/speed-kafka/test/support/wren'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '/work/wt/speed-kafka/services/projects/store'
import { mkdtemp } from 'node:fs/promises'
const k = await startKafka()
console.log('broker up')
const keys = { WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX), WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX) }
const t = Date.now()
try {
  const w = await spawnWren(await mkdtemp('/tmp/kw-'), { ...keys, KAFKA_BROKERS: k.brokers, KAFKA_TOPIC_PREFIX: process.env.P ?? '', KAFKA_PARTITIONS: '4' }, 'ingest,api')
  console.log('wren up in', Date.now() - t)
  console.log(w.output().slice(-3000))
  await w.stop()
} catch (e) { console.log('ERR', String(e).slice(0, 3000)) }
await k.stop()
