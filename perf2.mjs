import { Session } from 'chdb'
const s = new Session('/tmp/funnel-perf-db')
const run = (name, q) => { const t0 = Date.now(); const out = s.query(q, 'JSONCompact'); console.log(name, Date.now() - t0, 'ms', out.slice(out.indexOf('"data"'), out.indexOf('"data"') + 120).replace(/\s+/g, ' ')) }
const base = `SELECT person_id AS actor, arraySort(x -> (x.1, x.2), groupArray((toUnixTimestamp64Micro(timestamp), arrayFilter(x -> x != 0, CAST([if(event = '$pageview', 1, 0), if(event = 'signed_up', 2, 0), if(event = 'paid', 3, 0)] AS Array(Int8))), ''))) AS evs FROM events WHERE event IN ('$pageview','signed_up','paid') GROUP BY actor`
run('sortonly', `SELECT count(), sum(length(evs)) FROM (${base})`)
run('hand', `SELECT level, count() FROM (SELECT person_id, windowFunnel(1209600)(toDateTime(timestamp), event = '$pageview', event = 'signed_up', event = 'paid') AS level FROM events WHERE event IN ('$pageview','signed_up','paid') GROUP BY person_id) GROUP BY level ORDER BY level`)
run('simplefold', `SELECT sum(f) FROM (SELECT arrayFold((acc, e) -> acc + e.1, evs, toInt64(0)) AS f FROM (${base}))`)
run('tuplefold', `SELECT sum(f.1) FROM (SELECT arrayFold((acc, e) -> CAST((acc.1 + e.1, arrayPushBack(acc.2, e.1)) AS Tuple(Int64, Array(Int64))), evs, CAST((0, []) AS Tuple(Int64, Array(Int64)))) AS f FROM (${base}))`)
run('arrfold', `SELECT sum(length(f)) FROM (SELECT arrayFold((acc, e) -> arrayMap((x, i) -> if(i = 2, e.1, x), acc, arrayEnumerate(acc)), evs, CAST([0,0,0,0] AS Array(Int64))) AS f FROM (${base}))`)
