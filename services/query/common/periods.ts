// A period of an interval as one integer, in SQL and in Wren alike, so that "the next period" is `+ step`:
// an hour is the instant (seconds) its wall hour starts; a day the number of its wall date (days since
// 1970-01-01); a week the number of its first day (step 7); a month year * 12 + month. Wall time is the
// project's timezone, weeks start on its week start day. DST never makes two days one or one day two.
import { fromWall } from '../../analytics/time/wall-time'
import { bucketStart, type Interval } from './dates'

/** How far apart two consecutive periods' keys are. */
export const PERIOD_STEP: Record<Interval, number> = { hour: 3600, day: 1, week: 7, month: 1 }

/** The key (Int64) of the period a DateTime64 SQL expression falls in; `tz` is the SQL of the timezone parameter. */
export function periodKeySql(expr: string, interval: Interval, tz: string, weekStartDay: number): string {
  return `toInt64(${periodNumberSql(expr, interval, tz, weekStartDay)})`
}

/**
 * The same key as ClickHouse computes it (UInt32), for a query that only compares or counts keys: counting
 * distinct UInt32s is cheaper than Int64s (stickiness over 10 M events: 1.14 s against 0.75 s).
 */
export function periodNumberSql(expr: string, interval: Interval, tz: string, weekStartDay: number): string {
  switch (interval) {
    case 'hour':
      return `toUnixTimestamp(toStartOfHour(toTimeZone(${expr}, ${tz})))`
    case 'day':
      return `toRelativeDayNum(${expr}, ${tz})`
    case 'week':
      return `toRelativeDayNum(toStartOfWeek(${expr}, ${weekStartDay === 1 ? 3 : 0}, ${tz}))`
    case 'month':
      return `toRelativeMonthNum(${expr}, ${tz})`
  }
}

/** The key of the period starting at a bucket (a wall time of the project, as dates.ts's buckets). */
export function periodKey(bucket: Date, interval: Interval, tz: string, weekStartDay: number): number {
  const start = bucketStart(bucket, interval, weekStartDay)
  switch (interval) {
    case 'hour':
      return Math.round(fromWall(start, tz).getTime() / 1000)
    case 'day':
    case 'week':
      return Math.round(start.getTime() / 86_400_000)
    case 'month':
      return start.getUTCFullYear() * 12 + start.getUTCMonth() + 1
  }
}
