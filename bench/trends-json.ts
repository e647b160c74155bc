// How a trend breakdown could read a property that has no column of its own (issue 24 item 4): the
// properties JSON text parsed at each read (JSONExtract, what Wren does today) against the same properties
// kept as ClickHouse's JSON type (each path a subcolumn) or as a Map(String, Nullable(String)), next to the
// String. Measures the daily $pageview breakdown's hand SQL on each (wall and CPU ms, alternated), the
// insert cost per event of ingestion-like inserts, bytes on disk per event and the cost of filling the new
// column on stored events. Prints figures; asserts nothing. Wren's own schema is not changed: the extra
// columns are added to this run's own data directory.
//   node --import tsx bench/trends-json.ts       (BENCH_EVENTS=2000000 for a quicker run)
//   BENCH_DATA_DIR=/tmp/wren-json-10m ...        keeps the loaded data there and reuses it on the next run
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { insertEncoded, migrate, openEmbeddedClickHouse, queryRows, encodeRows } from '../services/platform/clickhouse'
import { loadTrendEvents } from './trend-events'

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000_000)
const RUNS = Number(process.env.BENCH_RUNS ?? 5)
const INSERT_ROWS = 2_500
const INSERT_PARTS = Number(process.env.BENCH_INSERT_PARTS ?? 40)
const STAGES = new Set((process.env.BENCH_STAGES ?? 'reads,inserts').split(','))
const TEAM = 1

const keep = process.env.BENCH_DATA_DIR
const dataDir = keep ?? (await mkdtemp(path.join(tmpdir(), 'wren-bench-trends-json-')))
await mkdir(dataDir, { recursive: true })
const ch = await openEmbeddedClickHouse(dataDir)
const loadText = () =>
  `load average ${loadavg()
    .map((n) => n.toFixed(1))
    .join(' ')}`
const cpuMs = (used: NodeJS.CpuUsage) => (used.user + used.system) / 1000
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`

/** Waits until no mutation nor merge runs (background work would count in the CPU of what is timed next). */
async function settle(): Promise<void> {
  for (;;) {
    const [{ busy }] = await queryRows<{ busy: number }>(
      ch,
      `SELECT (SELECT count() FROM system.mutations WHERE database = currentDatabase() AND NOT is_done) + (SELECT count() FROM system.merges) AS busy`,
    )
    if (Number(busy) === 0) return
    await new Promise((r) => setTimeout(r, 200))
  }
}

/** Runs a statement and waits for the background work it started: wall and process CPU seconds (chDB works in this process). */
async function timed(query: string): Promise<{ wall: number; cpu: number; text: string }> {
  const start = performance.now()
  const startCpu = process.cpuUsage()
  await ch.command({ query })
  await settle()
  const wall = (performance.now() - start) / 1000
  const cpu = cpuMs(process.cpuUsage(startCpu)) / 1000
  return { wall, cpu, text: `${wall.toFixed(1)} s wall, ${cpu.toFixed(1)} s CPU` }
}

// Shared-data layouts of the JSON type: a path beyond max_dynamic_paths is kept in the shared data, whose
// serialization is a table setting; max_dynamic_paths = 0 puts every path there.
const SHARED_DATA = ['map', 'map_with_buckets', 'advanced'] as const
const JSON_TYPE = 'JSON'
const MAP_EXPR = `CAST(JSONExtractKeysAndValues(properties, 'Nullable(String)'), 'Map(String, Nullable(String))')`

try {
  await migrate(ch)
  const [{ n: stored }] = await queryRows<{ n: number }>(ch, 'SELECT count() AS n FROM events')
  if (Number(stored) === 0) {
    const start = performance.now()
    await loadTrendEvents(ch, {
      team: TEAM,
      events: EVENTS,
      now: '2026-03-15 12:00:00',
      moreProperties: process.env.BENCH_PROPERTIES === 'posthog-js' ? 'posthog-js' : 'two',
    })
    await settle()
    console.log(`loaded ${EVENTS.toLocaleString()} events in ${((performance.now() - start) / 1000).toFixed(1)} s`)
  } else console.log(`reusing ${Number(stored).toLocaleString()} events in ${dataDir}`)
  const events = Number((await queryRows<{ n: number }>(ch, 'SELECT count() AS n FROM events'))[0].n)

  // The new columns on the stored events: added, then written into every part (what a migration of existing data would run).
  const columns = await queryRows<{ name: string }>(
    ch,
    `SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'events'`,
  )
  const has = (name: string) => columns.some((c) => c.name === name)
  for (const [name, type, expr] of [
    ['pj', JSON_TYPE, 'properties'],
    ['pm', 'Map(String, Nullable(String))', MAP_EXPR],
  ] as const) {
    if (has(name)) continue
    await ch.command({ query: `ALTER TABLE events ADD COLUMN ${name} ${type} MATERIALIZED ${expr}` })
    console.log(
      `events.${name} ${type}: column filled on ${events.toLocaleString()} stored events in ${(await timed(`ALTER TABLE events MATERIALIZE COLUMN ${name}`)).text} (${loadText()})`,
    )
  }
  // The same columns in tables of their own (only the columns the trend reads): the JSON type with every path
  // in shared data, one table per serialization; the Map with its keys in buckets (from 32 keys per event on
  // average, by default); each compressed as the properties String is.
  const ORDER = `ENGINE = MergeTree PARTITION BY toYYYYMM(timestamp) ORDER BY (team_id, toDate(timestamp), event, cityHash64(distinct_id), cityHash64(uuid))`
  const variants: Array<[table: string, column: string, from: string, settings: string]> = [
    ...SHARED_DATA.map((v): [string, string, string, string] => [
      `jv_${v}`,
      'pj JSON(max_dynamic_paths = 0)',
      'properties',
      `object_shared_data_serialization_version = '${v}', object_shared_data_serialization_version_for_zero_level_parts = '${v}'`,
    ]),
    ['jz', `pj ${JSON_TYPE} CODEC(ZSTD(3))`, 'pj', ''],
    [
      'mv_with_buckets',
      'pm Map(String, Nullable(String))',
      'pm',
      `map_serialization_version = 'with_buckets', map_serialization_version_for_zero_level_parts = 'with_buckets'`,
    ],
    ['mz', 'pm Map(String, Nullable(String)) CODEC(ZSTD(3))', 'pm', ''],
  ]
  for (const [table, column, from, settings] of variants) {
    if ((await queryRows(ch, `EXISTS TABLE ${table}`)).some((r) => Object.values(r as object)[0] === 1)) continue
    await ch.command({
      query: `CREATE TABLE ${table} (team_id Int64, timestamp DateTime64(6, 'UTC'), event String, distinct_id String, uuid UUID, ${column}) ${ORDER}${settings ? ` SETTINGS ${settings}` : ''}`,
    })
    const fill = await timed(`INSERT INTO ${table} SELECT team_id, timestamp, event, distinct_id, uuid, ${from} FROM events`)
    console.log(`${table}: filled in ${fill.text}, merged in ${(await timed(`OPTIMIZE TABLE ${table} FINAL`)).text}`)
  }
  await settle()

  // Bytes on disk per event, per column.
  const sizes = await queryRows<{ table: string; column: string; bytes: number; raw: number }>(
    ch,
    `SELECT table, column, sum(column_data_compressed_bytes) AS bytes, sum(column_data_uncompressed_bytes) AS raw FROM system.parts_columns
     WHERE database = currentDatabase() AND active AND (table = 'events' AND column IN ('properties', 'pj', 'pm') OR table IN (${variants.map(([t]) => `'${t}'`).join(', ')}) AND column IN ('pj', 'pm'))
     GROUP BY table, column ORDER BY table, column`,
  )
  console.log('\nbytes on disk per event (compressed, uncompressed):')
  for (const s of sizes)
    console.log(
      `  ${`${s.table}.${s.column}`.padEnd(24)} ${(Number(s.bytes) / events).toFixed(1).padStart(7)} ${(Number(s.raw) / events).toFixed(1).padStart(7)}`,
    )
  const [{ total }] = await queryRows<{ total: number }>(
    ch,
    `SELECT sum(bytes_on_disk) AS total FROM system.parts WHERE database = currentDatabase() AND active AND table = 'events'`,
  )
  console.log(`  events, whole table: ${(Number(total) / events).toFixed(1)} bytes per event`)

  if (STAGES.has('reads')) {
    const where = `team_id = ${TEAM} AND timestamp >= toDateTime64('2026-02-14 00:00:00', 6, 'UTC') AND timestamp <= toDateTime64('2026-03-15 23:59:59.999999', 6, 'UTC') AND event = '$pageview'`
    const breakdown = (table: string, expr: string, settings = '') =>
      `SELECT toStartOfDay(timestamp) AS d, ${expr} AS b, count() AS c FROM ${table} WHERE ${where} GROUP BY d, b ORDER BY d, b${settings ? ` SETTINGS ${settings}` : ''}`
    const path = (key: string) => `pj.\`${key}\``
    // The same text answers as JSONExtract for scalars (bench/results/2026-11-28-issue-24-trends.md lists where they differ).
    const jsonRead = (key: string) => `CAST(${path(key)}, 'Nullable(String)')`
    for (const key of (process.env.BENCH_KEYS ?? 'price,$pathname,coupon').split(',')) {
      const k = `'${key}'`
      const contenders: Array<[string, string]> = [
        ['a. JSONExtract on the String (today)', breakdown('events', `JSONExtract(properties, ${k}, 'Nullable(String)')`)],
        ['b. JSON column, CAST(path)', breakdown('events', jsonRead(key))],
        [
          'b. JSON column, arrays as JSON',
          breakdown('events', `if(startsWith(dynamicType(${path(key)}), 'Array'), toJSONString(${path(key)}), ${jsonRead(key)})`),
        ],
        ...SHARED_DATA.map((v): [string, string] => [`b. JSON, shared data '${v}'`, breakdown(`jv_${v}`, jsonRead(key))]),
        [
          'b. JSON column, strings or JSON text',
          breakdown('events', `coalesce(${path(key)}.:String, nullIf(toJSONString(${path(key)}), 'null'))`),
        ],
        ['c. Map column', breakdown('events', `pm[${k}]`)],
        ['b. JSON column, CAST(path), ZSTD(3)', breakdown('jz', jsonRead(key))],
        ['c. Map column, with_buckets', breakdown('mv_with_buckets', `pm[${k}]`)],
        ['c. Map column, ZSTD(3)', breakdown('mz', `pm[${k}]`)],
        ['d. JSONExtract, rapidjson', breakdown('events', `JSONExtract(properties, ${k}, 'Nullable(String)')`, 'allow_simdjson = 0')],
      ]
      // Every contender gives the reference's answer.
      const answer = async (sql: string) => JSON.stringify(await queryRows(ch, sql))
      const reference = await answer(contenders[0][1])
      for (const [name, sql] of contenders.slice(1))
        if ((await answer(sql)) !== reference) console.log(`  ${name}: answers differ on ${key}`)
      const wall: number[][] = contenders.map(() => [])
      const cpu: number[][] = contenders.map(() => [])
      const peak: number[] = contenders.map(() => 0)
      for (let run = 0; run < RUNS; run++) {
        for (const [i, [, sql]] of contenders.entries()) {
          let rss = process.memoryUsage().rss
          const sampler = setInterval(() => (rss = Math.max(rss, process.memoryUsage().rss)), 5)
          const start = performance.now()
          const startCpu = process.cpuUsage()
          await queryRows(ch, sql)
          cpu[i].push(cpuMs(process.cpuUsage(startCpu)))
          wall[i].push(performance.now() - start)
          clearInterval(sampler)
          peak[i] = Math.max(peak[i], rss)
        }
      }
      console.log(`\nbreakdown by ${key} (${events.toLocaleString()} events, median of ${RUNS}, ${loadText()})`)
      console.log(
        `${'read'.padEnd(40)} ${'wall ms'.padStart(8)} ${'CPU ms'.padStart(8)} ${'CPU ratio'.padStart(9)} ${'peak RSS'.padStart(9)}`,
      )
      for (const [i, [name]] of contenders.entries()) {
        console.log(
          `${name.padEnd(40)} ${median(wall[i]).toFixed(0).padStart(8)} ${median(cpu[i]).toFixed(0).padStart(8)} ${(median(cpu[i]) / median(cpu[0])).toFixed(2).padStart(9)} ${mib(peak[i]).padStart(9)}`,
        )
      }
    }
  }

  if (STAGES.has('inserts')) {
    // Ingestion-like inserts: parts of 2,500 rows as the writer sends them (JSONEachRow, JSON columns as
    // objects), into empty tables of each layout, alternately; merges stopped, then timed on their own.
    const rows = await queryRows<Record<string, unknown>>(
      ch,
      `SELECT uuid, event, properties, timestamp, team_id, distinct_id, elements_chain, created_at, person_id, person_created_at, person_properties, person_mode, group0_properties, group1_properties, group2_properties, group3_properties, group4_properties, _partition, _offset FROM events LIMIT ${INSERT_ROWS * INSERT_PARTS}`,
    )
    const objects = [
      'properties',
      'person_properties',
      'group0_properties',
      'group1_properties',
      'group2_properties',
      'group3_properties',
      'group4_properties',
    ]
    for (const r of rows) for (const c of objects) r[c] = JSON.parse(r[c] as string)
    const parts = Array.from({ length: INSERT_PARTS }, (_, i) => encodeRows(rows.slice(i * INSERT_ROWS, (i + 1) * INSERT_ROWS)))
    // Each layout's table: the migrations' events table (its CREATE, without this run's extra columns), changed.
    const [{ statement }] = await queryRows<{ statement: string }>(ch, 'SHOW CREATE TABLE events')
    const base = statement
      .split('\n')
      .filter((line) => !/^\s*`p[jm]` /.test(line))
      .join('\n')
      .replace(/,(\s*\)\s*ENGINE)/, '$1')
    const layouts: Array<[string, string]> = [
      ['a. String (today)', base],
      ['b. String + JSON MATERIALIZED', base.replace(/(`_offset` UInt64)/, `$1,\n    pj ${JSON_TYPE} MATERIALIZED properties`)],
      [
        'b. JSON only',
        // The properties as JSON, and the columns read from them reading its paths.
        base
          .replace(/`properties` String CODEC\(ZSTD\(3\)\)/, `\`properties\` ${JSON_TYPE}`)
          .replace(/JSONExtractString\(properties, '([^']+)'\)/g, "ifNull(CAST(properties.`$1`, 'Nullable(String)'), '')"),
      ],
      [
        'c. String + Map MATERIALIZED',
        base.replace(/(`_offset` UInt64)/, `$1,\n    pm Map(String, Nullable(String)) MATERIALIZED ${MAP_EXPR}`),
      ],
    ]
    const cpu: number[][] = layouts.map(() => [])
    const merge: number[] = []
    for (const [i, [, create]] of layouts.entries()) {
      if (process.env.BENCH_VERBOSE) console.log(create)
      await ch.command({ query: `DROP TABLE IF EXISTS ins_${i}` })
      await ch.command({ query: create.replace(/CREATE TABLE \S+/, `CREATE TABLE ins_${i}`) })
      await ch.command({ query: `SYSTEM STOP MERGES ins_${i}` })
    }
    await settle()
    for (const [p, chunks] of parts.entries()) {
      for (const [i] of layouts.entries()) {
        const startCpu = process.cpuUsage()
        await insertEncoded(ch, `ins_${i}`, chunks, `bench:${p}`)
        cpu[i].push(cpuMs(process.cpuUsage(startCpu)))
      }
    }
    for (const [i] of layouts.entries()) {
      await ch.command({ query: `SYSTEM START MERGES ins_${i}` })
      merge.push((await timed(`OPTIMIZE TABLE ins_${i} FINAL`)).cpu)
    }
    console.log(
      `\ninserts of ${INSERT_ROWS} rows (${INSERT_PARTS} parts per layout, alternated, ${loadText()}): CPU µs per event, median part [min–max]; then merging them into one part, CPU µs per event`,
    )
    for (const [i, [name]] of layouts.entries()) {
      const per = cpu[i].map((ms) => (ms * 1000) / INSERT_ROWS)
      console.log(
        `${name.padEnd(34)} ${median(per).toFixed(1).padStart(7)} [${Math.min(...per).toFixed(1)}–${Math.max(...per).toFixed(1)}] (${(median(per) / median(cpu[0].map((ms) => (ms * 1000) / INSERT_ROWS))).toFixed(2)}x)  merge: ${((merge[i] * 1e6) / (INSERT_ROWS * INSERT_PARTS)).toFixed(1)}`,
      )
    }
    for (const [i] of layouts.entries()) await ch.command({ query: `DROP TABLE ins_${i}` })
  }
} finally {
  await ch.close()
  if (!keep) await rm(dataDir, { recursive: true, force: true })
}
