import { Session } from 'chdb'
import fs from 'node:fs'
const s = new Session('/tmp/funnel-perf-db')
const N = Number(process.argv[2] ?? 2000000)
const { sql, params } = JSON.parse(fs.readFileSync('/tmp/funnel-sql.json', 'utf8'))
if (process.argv[3] === 'load') {
  s.query('DROP TABLE IF EXISTS events')
  s.query(`CREATE TABLE events (team_id Int64, event String, timestamp DateTime64(6, 'UTC'), person_id UUID, distinct_id String, properties String) ENGINE = MergeTree ORDER BY (team_id, toDate(timestamp), event, cityHash64(distinct_id))`)
  s.query(`INSERT INTO events SELECT ${params.p1}, ['$pageview','signed_up','paid','other'][number % 4 + 1], toDateTime64('2026-03-08 00:00:00', 6, 'UTC') + toIntervalSecond(cityHash64(number, 1) % (7*86400)), reinterpretAsUUID(toFixedString(reinterpretAsString(cityHash64(number, 2) % 200000), 16)), 'u', '{}' FROM numbers(${N})`)
}
let q = sql
for (const [k, v] of Object.entries(params)) q = q.replaceAll(new RegExp(`\\{${k}:[A-Za-z0-9()]+\\}`, 'g'), typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "\\'")}'`)
const hand = `SELECT level, count() FROM (SELECT person_id, windowFunnel(1209600)(toDateTime(timestamp), event = '$pageview', event = 'signed_up', event = 'paid') AS level FROM events WHERE team_id = ${params.p1} AND event IN ('$pageview','signed_up','paid') GROUP BY person_id) GROUP BY level ORDER BY level`
for (const [name, text] of [['hand', hand], ['wren', q], ['hand', hand], ['wren', q]]) {
  const t0 = Date.now()
  const out = s.query(text, 'JSONCompact')
  console.log(name, Date.now() - t0, 'ms', out.slice(out.indexOf('"data"'), out.indexOf('"data"') + 200).replace(/\s+/g, ' '))
}
