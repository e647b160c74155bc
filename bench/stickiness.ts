// Stickiness benchmark: how many days of the last 30 each person viewed a page, over N synthetic events (default
// 1 M; BENCH_EVENTS=10000000 for the figure) through the StickinessQuery kind, with and without compare,
// next to a hand-written ClickHouse SQL (each person's distinct days, counted), alternated.
//   npm run bench -- stickiness                 (BENCH_EVENTS, BENCH_RUNS=7, BENCH_DATA_DIR to keep the data)
import { stickinessKind } from '../services/query/kinds/stickiness'
import { benchKinds, RANGE, TEAM, type Case } from './insight-kind'

const query = (compare: boolean) =>
  stickinessKind.parse({
    kind: 'StickinessQuery',
    series: [{ kind: 'EventsNode', event: '$pageview' }],
    dateRange: { date_from: '-30d' },
    interval: 'day',
    ...(compare ? { compareFilter: { compare: true } } : {}),
  })
const hand = `SELECT n, count() FROM (SELECT person_id, uniqExact(toDate(timestamp)) AS n FROM events
  WHERE ${RANGE} AND event = '$pageview' GROUP BY person_id) GROUP BY n ORDER BY n`
// With compare: the 30 days before too, in the same pass (period 0 the current one, 1 the previous).
const compareHand = `SELECT p, n, count() FROM (
    SELECT person_id, if(timestamp >= toDateTime64('2026-02-13 00:00:00', 6, 'UTC'), 0, 1) AS p, uniqExact(toDate(timestamp)) AS n FROM events
    WHERE team_id = ${TEAM} AND timestamp >= toDateTime64('2026-01-14 00:00:00', 6, 'UTC') AND timestamp <= toDateTime64('2026-03-15 23:59:59.999999', 6, 'UTC')
      AND event = '$pageview' GROUP BY person_id, p) GROUP BY p, n ORDER BY p, n`
const agree: Case['agree'] = (ours, theirs) => {
  const data = (ours as Array<{ data: number[] }>)[0].data
  const handData = data.map((_, i) => Number(theirs.find((r) => Number(r[0]) === i + 1)?.[1] ?? 0))
  return JSON.stringify(data) === JSON.stringify(handData) ? 'counts agree' : `counts differ: ${data} vs ${handData}`
}

await benchKinds('StickinessQuery', [
  {
    name: '$pageview, 30 days',
    kind: async (deps, run) => (await stickinessKind.run(deps as never, run, query(false))).results,
    hand,
    agree,
  },
  {
    name: '… with compare',
    kind: async (deps, run) => (await stickinessKind.run(deps as never, run, query(true))).results,
    hand: compareHand,
    agree: (ours, theirs) =>
      agree(
        [(ours as unknown[])[0]],
        theirs.filter((r) => Number(r[0]) === 0).map((r) => r.slice(1)),
      ),
  },
])
