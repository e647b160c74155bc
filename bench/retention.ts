// Retention benchmark: PostHog's default retention (a $pageview cohort each day, 11 days, returning on
// $pageview) and a weekly first-time retention (signed_up, then $pageview) with a browser breakdown, over N
// synthetic events (default 1 M; BENCH_EVENTS=10000000 for issue 33's figure) through the RetentionQuery kind,
// next to hand-written ClickHouse SQL of the same question on the same engine and data, alternated in the same
// run (the bench checks the cohort sizes agree). Prints figures; asserts nothing.
//   npm run bench -- retention                  (BENCH_EVENTS, BENCH_RUNS=7, BENCH_DATA_DIR to keep the data)
import { retentionKind } from '../services/query/kinds/retention'
import { benchKinds, TEAM } from './insight-kind'

const cases = {
  // Days 2026-03-05 … 2026-03-15: each day's viewers, and on which of the next 10 days they viewed again.
  'daily recurring': {
    query: { kind: 'RetentionQuery', retentionFilter: { period: 'Day', totalIntervals: 11 } },
    hand: `SELECT s, k, count() AS c FROM (
        SELECT person_id, s, arrayJoin(arrayConcat([0], arrayFilter(k -> k > 0 AND k < 11, arrayMap(d -> d - s, days)))) AS k
        FROM (SELECT person_id, groupUniqArray(dateDiff('day', toDate('2026-03-05'), toDate(timestamp, 'UTC'))) AS days
          FROM events WHERE team_id = ${TEAM} AND event = '$pageview'
            AND timestamp >= toDateTime64('2026-03-05 00:00:00', 6, 'UTC') AND timestamp < toDateTime64('2026-03-16 00:00:00', 6, 'UTC')
          GROUP BY person_id) ARRAY JOIN days AS s)
      GROUP BY s, k`,
  },
  // Weeks from 2026-02-08 (Sunday): the week of each person's first sign-up (if in the range), broken down by that
  // sign-up's browser, and the weeks after it with a pageview.
  'weekly first-time by browser': {
    query: {
      kind: 'RetentionQuery',
      dateRange: { date_from: '2026-02-08' },
      retentionFilter: {
        period: 'Week',
        totalIntervals: 6,
        retentionType: 'retention_first_time',
        targetEntity: { id: 'signed_up', type: 'events' },
        returningEntity: { id: '$pageview', type: 'events' },
      },
      breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
    },
    hand: `SELECT s, k, browser, count() AS c FROM (
        SELECT person_id, s, browser, arrayJoin(arrayConcat([0], arrayFilter(k -> k > 0 AND k < 6, arrayMap(w -> w - s, weeks)))) AS k
        FROM (SELECT person_id,
            toInt64(intDiv(dateDiff('day', toDate('2026-02-08'), toDate(minIf(timestamp, event = 'signed_up'), 'UTC')), 7)) AS s,
            argMinIf(\`mat_$browser\`, timestamp, event = 'signed_up') AS browser,
            groupUniqArrayIf(toInt64(intDiv(dateDiff('day', toDate('2026-02-08'), toDate(timestamp, 'UTC')), 7)),
              event = '$pageview' AND timestamp >= toDateTime64('2026-02-08 00:00:00', 6, 'UTC')) AS weeks
          FROM events WHERE team_id = ${TEAM} AND event IN ('signed_up', '$pageview') AND timestamp < toDateTime64('2026-03-22 00:00:00', 6, 'UTC')
          GROUP BY person_id HAVING countIf(event = 'signed_up') > 0 AND minIf(timestamp, event = 'signed_up') >= toDateTime64('2026-02-08 00:00:00', 6, 'UTC')))
      GROUP BY s, k, browser`,
  },
}

// The kind's cells summed over breakdown values, against the hand-written cells (each row's last column).
const total = (cells: number[]) => cells.reduce((a, b) => a + b, 0)
await benchKinds(
  'RetentionQuery',
  Object.entries(cases).map(([name, c]) => {
    const query = retentionKind.parse(c.query)
    return {
      name,
      kind: async (deps, run) => (await retentionKind.run(deps as never, run, query)).results,
      hand: c.hand,
      agree: (ours, theirs) => {
        const oursCells = total((ours as Array<{ values: Array<{ count: number }> }>).flatMap((r) => r.values.map((v) => v.count)))
        const handCells = total(theirs.filter((r) => Number(r[0]) >= 0).map((r) => Number(r[r.length - 1])))
        return oursCells === handCells ? `cells agree (${oursCells})` : `cells: ${oursCells} vs hand ${handCells}`
      },
    }
  }),
)
