// Lifecycle benchmark: the $pageview lifecycle of the last 30 days by day over N synthetic events (default 1 M;
// BENCH_EVENTS=10000000 for the figure) through the LifecycleQuery kind, next to a hand-written
// ClickHouse SQL of the same statuses (each person's active days and its creation day), alternated.
//   npm run bench -- lifecycle                  (BENCH_EVENTS, BENCH_RUNS=7, BENCH_DATA_DIR to keep the data)
import { lifecycleKind } from '../services/query/kinds/lifecycle'
import { benchKinds, RANGE } from './insight-kind'

const query = lifecycleKind.parse({
  kind: 'LifecycleQuery',
  series: [{ kind: 'EventsNode', event: '$pageview' }],
  dateRange: { date_from: '-30d' },
  interval: 'day',
})
// A day before the range to a day after (a person active the day before is returning, not resurrecting).
const wide = RANGE.replace("'2026-02-13 00:00:00'", "'2026-02-12 00:00:00'").replace(
  "'2026-03-15 23:59:59.999999'",
  "'2026-03-16 23:59:59.999999'",
)
const hand = `SELECT d, s, count() FROM (
    SELECT arrayJoin(arrayConcat(
      arrayMap((day, i) -> (day, if(i = 1 AND day = created, 'new', if(i > 1 AND days[i - 1] = day - 1, 'returning', 'resurrecting'))), days, arrayEnumerate(days)),
      arrayMap(day -> (day + 1, 'dormant'), arrayFilter((day, i) -> i = length(days) OR days[i + 1] != day + 1, days, arrayEnumerate(days))))) AS p,
      p.1 AS d, p.2 AS s
    FROM (SELECT person_id, toDate(min(person_created_at)) AS created, arraySort(groupUniqArray(toDate(timestamp))) AS days
      FROM events WHERE ${wide} AND event = '$pageview' GROUP BY person_id))
  WHERE d >= '2026-02-13' AND d <= '2026-03-15' GROUP BY d, s`

await benchKinds('LifecycleQuery', [
  {
    name: '$pageview, 30 days',
    kind: async (deps, run) => (await lifecycleKind.run(deps as never, run, query)).results,
    hand,
    agree: (ours, theirs) => {
      const sum = (status: string) => (ours as Array<{ status: string; count: number }>).find((s) => s.status === status)!.count
      const handSum = (status: string) => theirs.filter((r) => r[1] === status).reduce((a, r) => a + Number(r[2]), 0)
      const statuses = ['new', 'returning', 'resurrecting', 'dormant']
      const same = statuses.every((s) => Math.abs(sum(s)) === handSum(s))
      return same ? 'totals agree' : `totals: ${statuses.map(sum)} vs ${statuses.map(handSum)}`
    },
  },
])
