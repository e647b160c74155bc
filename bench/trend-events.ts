// The trend benchmarks' events: the same columns as ingestion writes (persons-on-events, 200k persons,
// 35 days of history before `now`), bulk-loaded with one SQL `INSERT … SELECT` per million rows.
import { INSERT_SELECT_SETTINGS, type ClickHouseClient } from '../services/platform/clickhouse'

const CHUNK = 1_000_000

export interface TrendEventsOptions {
  team: number
  events: number
  /** The end of the 35 days, `YYYY-MM-DD hh:mm:ss` UTC. */
  now: string
  /**
   * More properties (bench/trends-json.ts): `$pathname` (a string, 500 values, on every event) and `coupon`
   * (on 1 event in 100); 'posthog-js' adds 40 more of the kind posthog-js sends with a pageview (about
   * 1.45 KB of JSON per event, against 80 bytes without).
   */
  moreProperties?: 'two' | 'posthog-js'
}

/** posthog-js's other pageview properties, as SQL that concat() appends to the JSON text (`number` numbers the event). */
const POSTHOG_JS = [
  `'$os":"', ['Mac OS X', 'Windows', 'iOS', 'Android', 'Linux'][number % 5 + 1], '"'`,
  `'$os_version":"', toString(10 + number % 7), '.', toString(number % 4), '"'`,
  `'$browser_version":', toString(100 + number % 30)`,
  `'$device_type":"', ['Desktop', 'Mobile', 'Tablet'][number % 3 + 1], '"'`,
  `'$current_url":"https://app.example.com/p', toString(number % 500), '?ref=', toString(number % 13), '"'`,
  `'$host":"app.example.com"'`,
  `'$raw_user_agent":"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/', toString(100 + number % 30), '.0.0.0 Safari/537.36"'`,
  `'$screen_height":', toString(700 + number % 400)`,
  `'$screen_width":', toString(1200 + number % 800)`,
  `'$viewport_height":', toString(600 + number % 300)`,
  `'$viewport_width":', toString(1100 + number % 700)`,
  `'$lib":"web"'`,
  `'$lib_version":"1.', toString(150 + number % 40), '.0"'`,
  `'$insert_id":"', lower(hex(cityHash64(number, 11))), '"'`,
  `'$time":', toString(1770000000 + number / 1000)`,
  `'distinct_id":"user', toString(cityHash64(number, 3) % 200000), '"'`,
  `'$device_id":"', toString(generateUUIDv4(number)), '"'`,
  `'$referrer":"', ['$direct', 'https://www.google.com/', 'https://news.ycombinator.com/'][number % 3 + 1], '"'`,
  `'$referring_domain":"', ['$direct', 'www.google.com', 'news.ycombinator.com'][number % 3 + 1], '"'`,
  `'$initial_referrer":"$direct"'`,
  `'$initial_referring_domain":"$direct"'`,
  `'$window_id":"w', toString(cityHash64(number) % 3000000), '"'`,
  `'$pageview_id":"', lower(hex(cityHash64(number, 12))), '"'`,
  `'$timezone":"', ['Europe/Paris', 'America/New_York', 'Asia/Tokyo'][number % 3 + 1], '"'`,
  `'$browser_language":"', ['en-US', 'fr-FR', 'de-DE', 'ja-JP'][number % 4 + 1], '"'`,
  `'$browser_language_prefix":"', ['en', 'fr', 'de', 'ja'][number % 4 + 1], '"'`,
  `'$is_identified":', if(number % 3 = 0, 'true', 'false')`,
  `'$process_person_profile":true'`,
  `'$configured_session_timeout_ms":1800000'`,
  `'$session_entry_url":"https://app.example.com/p', toString(number % 97), '"'`,
  `'$session_entry_pathname":"/p', toString(number % 97), '"'`,
  `'$session_entry_referrer":"$direct"'`,
  `'$session_entry_host":"app.example.com"'`,
  `'$recording_status":"active"'`,
  `'$sdk_debug_replay_internal_buffer_length":', toString(number % 50)`,
  `'$sdk_debug_retry_queue_size":0'`,
  `'$lib_custom_api_host":"https://wren.example.com"'`,
  `'token":"phc_benchmarkbenchmarkbenchmarkbenchmark01"'`,
  `'$sent_at":"2026-03-15T12:00:00.000Z"'`,
  `'$prev_pageview_pathname":"/p', toString((number + 1) % 500), '"'`,
]
  .map((kv) => `, ',"', ${kv}`)
  .join('')

export async function loadTrendEvents(ch: ClickHouseClient, options: TrendEventsOptions): Promise<void> {
  const more = options.moreProperties
    ? `, ',"$pathname":"/p', toString(number % 500), '"', if(number % 100 = 7, concat(',"coupon":"C', toString(intDiv(number, 100) % 7), '"'), '')` +
      (options.moreProperties === 'posthog-js' ? POSTHOG_JS : '')
    : ''
  for (let offset = 0; offset < options.events; offset += CHUNK) {
    const n = Math.min(CHUNK, options.events - offset)
    await ch.command({
      query: `INSERT INTO events (uuid, event, properties, timestamp, team_id, distinct_id, elements_chain, created_at, person_id, person_created_at, person_properties, person_mode, group0_properties, group1_properties, group2_properties, group3_properties, group4_properties, _partition, _offset)
        SETTINGS ${INSERT_SELECT_SETTINGS}
        SELECT generateUUIDv4(number), ev, props, ts, {team:Int64}, did, '', ts, pid, toDateTime64('2026-01-01 00:00:00', 6, 'UTC'), '{"plan":"free"}', 'full', '{}', '{}', '{}', '{}', '{}', 0, intDiv(number, 10000)
        FROM (
          SELECT number,
            multiIf(number % 10 < 6, '$pageview', number % 10 < 8, 'signed_up', '$autocapture') AS ev,
            concat('{"$browser":"', ['Chrome', 'Safari', 'Firefox', 'Edge', 'Opera', 'Brave', 'Vivaldi', 'Samsung'][number % 8 + 1], '","$session_id":"s', toString(cityHash64(number) % 2000000), '","price":', toString(number % 100)${more}, '}') AS props,
            toDateTime64({now:String}, 6, 'UTC') - toIntervalSecond(cityHash64(number, 7) % (35 * 86400)) AS ts,
            concat('user', toString(cityHash64(number, 3) % 200000)) AS did,
            reinterpretAsUUID(concat(reinterpretAsString(cityHash64(did)), reinterpretAsString(cityHash64(did, 1)))) AS pid
          FROM numbers({offset:UInt64}, {n:UInt64}))`,
      query_params: { team: options.team, now: options.now, offset, n },
    })
  }
}
