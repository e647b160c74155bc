import { Session } from 'chdb'
import fs from 'node:fs'
const s = new Session('/tmp/funnel-perf-db')
const { sql, params } = JSON.parse(fs.readFileSync('/tmp/funnel-sql.json', 'utf8'))
let q = sql
for (const [k, v] of Object.entries(params)) q = q.replaceAll(new RegExp(`\\{${k}:[A-Za-z0-9()]+\\}`, 'g'), typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "\\'")}'`)
// actor rows = inner of "FROM (" after "GROUP BY pv" ... find the actorRows text
const start = q.indexOf('FROM (SELECT actor, replaceAll') + 6
const end = q.indexOf(') GROUP BY pv')
const rows = q.slice(start, end)
const run = (name, text) => { const t0 = Date.now(); const out = s.query(text, 'JSONCompact'); console.log(name, Date.now() - t0, 'ms', out.slice(out.indexOf('"data"'), out.indexOf('"data"') + 100).replace(/\s+/g, ' ')) }
run('rows', `SELECT count(), sum(step_reached) FROM (${rows})`)
const inner = rows.slice(rows.indexOf('SELECT actor, length(evs)'), rows.lastIndexOf('ARRAY JOIN pvs'))
run('grouped', `SELECT count(), sum(length(evs)) FROM (${inner.trim().replace(/\)\s*$/, '')})`)
