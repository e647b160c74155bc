// Funnels benchmark: a 4-step funnel over N synthetic events (default 1 M; BENCH_EVENTS=10000000 for the issue's
// figure) through the FunnelsQuery kind, for each viz type, next to hand-written ClickHouse SQL on the same
// engine and data, alternated in the same run: windowFunnel for the steps (the step counts must agree), and for
// time to convert and conversion trends the same windowFunnel per actor with the step times taken from its
// events. Prints figures; asserts nothing.
//   npm run bench -- funnels                    (BENCH_EVENTS, BENCH_RUNS=7, BENCH_DATA_DIR to keep the data)
import { funnelsKind } from '../services/query/kinds/funnels'
import { benchKinds, RANGE } from './insight-kind'

// The funnel: a pageview, a sign-up, an autocapture, then a pageview in Chrome, within 14 days, over the last 30.
const series = [
  { kind: 'EventsNode', event: '$pageview' },
  { kind: 'EventsNode', event: 'signed_up' },
  { kind: 'EventsNode', event: '$autocapture' },
  {
    kind: 'EventsNode',
    event: '$pageview',
    properties: [{ type: 'event', key: '$browser', operator: 'exact', value: ['Chrome'] }],
  },
]
const query = (vizType: string) =>
  funnelsKind.parse({ kind: 'FunnelsQuery', series, dateRange: { date_from: '-30d' }, funnelsFilter: { funnelVizType: vizType } })

const conditions = `event = '$pageview', event = 'signed_up', event = '$autocapture', event = '$pageview' AND \`mat_$browser\` = 'Chrome'`
const perActor = `SELECT person_id, windowFunnel(14 * 86400)(toDateTime(timestamp, 'UTC'), ${conditions}) AS level FROM events WHERE ${RANGE} GROUP BY person_id`
const hand: Record<string, string> = {
  steps: `SELECT countIf(level >= 1), countIf(level >= 2), countIf(level >= 3), countIf(level >= 4) FROM (${perActor})`,
  // Time to convert: each converted actor's first step-1 time to its last step-4 time, in 60 bins.
  time_to_convert: `SELECT groupArray(d) AS ds, arrayMin(ds) AS lo, arrayMax(ds) AS hi, (hi - lo) / 60 AS w,
      arrayMap(i -> countEqual(arrayMap(t -> least(59, toInt64(floor((t - lo) / greatest(w, 1)))), ds), i), range(60)) AS bins, arrayAvg(ds)
    FROM (SELECT person_id, dateDiff('second', min(if(event = '$pageview', timestamp, NULL)), max(timestamp)) AS d, any(level) AS level
      FROM events INNER JOIN (${perActor}) AS f USING person_id WHERE ${RANGE} GROUP BY person_id) WHERE level = 4`,
  // Conversion trends: per day of the first step, the actors entering and the ones reaching the last step.
  trends: `SELECT day, count(), countIf(level >= 4) FROM (
      SELECT person_id, toStartOfDay(min(if(event = '$pageview', timestamp, NULL)), 'UTC') AS day,
        windowFunnel(14 * 86400)(toDateTime(timestamp, 'UTC'), ${conditions}) AS level
      FROM events WHERE ${RANGE} GROUP BY person_id HAVING level >= 1) GROUP BY day ORDER BY day`,
}

await benchKinds(
  'FunnelsQuery',
  ['steps', 'time_to_convert', 'trends'].map((viz) => ({
    name: viz,
    kind: async (deps, run) => (await funnelsKind.run(deps as never, run, query(viz))).results,
    hand: hand[viz],
    agree: (ours, theirs) => {
      if (viz !== 'steps') return ''
      const counts = (ours as Array<{ count: number }>).map((s) => s.count)
      const handCounts = (theirs[0] as unknown[]).map(Number)
      return JSON.stringify(counts) === JSON.stringify(handCounts) ? 'counts agree' : `counts: ${counts} vs windowFunnel ${handCounts}`
    },
  })),
)
