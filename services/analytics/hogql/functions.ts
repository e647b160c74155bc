// The functions a HogQL query may call, and what each prints as. The names are PostHog's
// (posthog/hogql/functions/mapping.py and clickhouse/*.py, aggregations.py): ClickHouse's common functions
// under their own names, and PostHog's renames (toInt → toInt64OrNull, …). A name not listed here is a 400;
// so are table functions, which are names of tables, not of functions (schema.ts).

/** A function's ClickHouse name and how many arguments it takes. */
export interface FunctionSpec {
  clickhouse: string
  min: number
  max: number
  /** Aggregates rows (a filter, a condition on one row, cannot use it). */
  aggregate?: boolean
  /** Reads its arguments as numbers: a property (text) is cast with toFloat64OrNull (PostHog's Numeric properties). */
  numeric?: boolean
  /** What it returns, for the printer's type rules. */
  returns?: 'number' | 'string' | 'bool'
}

const ANY = 99
const specs = new Map<string, FunctionSpec>()
const add = (names: string, min: number, max: number, extra: Partial<FunctionSpec> = {}) => {
  for (const name of names.split(/\s+/).filter(Boolean)) specs.set(name, { clickhouse: name, min, max, ...extra })
}

// Arithmetic and comparison, as functions.
add('plus minus multiply divide intDiv intDivOrZero modulo moduloOrZero', 2, 2, { returns: 'number' })
add('negate abs', 1, 1, { returns: 'number' })
add('max2 min2 positiveModulo', 2, 2, { numeric: true, returns: 'number' })
add('gcd lcm', 2, 2, { returns: 'number' })
add('equals notEquals less greater lessOrEquals greaterOrEquals', 2, 2, { returns: 'bool' })
add('and or', 2, ANY, { returns: 'bool' })
add('not', 1, 1, { returns: 'bool' })
add('xor', 2, ANY, { returns: 'bool' })
// Conditionals and nulls.
add('if', 3, 3)
add('multiIf', 3, ANY)
add('coalesce', 1, ANY)
add('ifNull', 2, 2)
add('nullIf', 2, 2)
add('assumeNotNull toNullable', 1, 1)
add('isNull isNotNull', 1, 1, { returns: 'bool' })
add('greatest least', 1, ANY, { numeric: true, returns: 'number' })
// Math.
add('round floor ceil trunc roundBankers', 1, 2, { numeric: true, returns: 'number' })
add('sqrt cbrt exp exp2 exp10 log log2 log10 ln sin cos tan asin acos atan sign', 1, 1, { numeric: true, returns: 'number' })
add('pow power atan2 hypot', 2, 2, { numeric: true, returns: 'number' })
add('e pi', 0, 0, { returns: 'number' })
add('rand rand64 randCanonical', 0, 1, { returns: 'number' })
add('bitAnd bitOr bitXor bitShiftLeft bitShiftRight', 2, 2, { returns: 'number' })
add('bitNot', 1, 1, { returns: 'number' })
add('isNaN isFinite isInfinite', 1, 1, { returns: 'bool' })
// Types.
add('toString', 1, 2, { returns: 'string' })
add('toInt8 toInt16 toInt32 toInt64 toUInt8 toUInt16 toUInt32 toUInt64 toFloat32 toFloat64', 1, 1, { returns: 'number' })
add('toInt64OrNull toFloat64OrNull toInt64OrZero toFloat64OrZero toUInt64OrNull toInt32OrNull', 1, 1, { returns: 'number' })
add('toDecimal32 toDecimal64', 2, 2, { returns: 'number' })
add('toUUID', 1, 1)
add('toBool', 1, 1, { returns: 'bool' })
add('toTypeName', 1, 1, { returns: 'string' })
add('reinterpretAsString reinterpretAsUInt64', 1, 1)
add('accurateCastOrNull', 2, 2)
add('toJSONString', 1, 1, { returns: 'string' })
// Strings.
add('length lengthUTF8 char_length empty notEmpty', 1, 1)
add('lower upper lowerUTF8 upperUTF8 reverse reverseUTF8 trimLeft trimRight base64Encode base64Decode hex unhex', 1, 1, {
  returns: 'string',
})
add('leftPad rightPad leftPadUTF8 rightPadUTF8', 2, 3, { returns: 'string' })
add('concat', 1, ANY, { returns: 'string' })
add('concatWithSeparator', 2, ANY, { returns: 'string' })
add('substring substr substringUTF8 mid', 2, 3, { returns: 'string' })
add('left right leftUTF8 rightUTF8', 2, 2, { returns: 'string' })
add('replace replaceOne replaceAll replaceRegexpOne replaceRegexpAll', 3, 3, { returns: 'string' })
add('position positionCaseInsensitive positionUTF8 positionCaseInsensitiveUTF8 locate', 2, 3, { returns: 'number' })
add('like ilike notLike notILike match startsWith endsWith hasToken', 2, 2, { returns: 'bool' })
add('multiSearchAny multiMatchAny', 2, 2, { returns: 'bool' })
add('extract regexpExtract', 2, 3, { returns: 'string' })
add('extractAll extractAllGroups splitByChar splitByString splitByRegexp', 2, 3)
add('arrayStringConcat', 1, 2, { returns: 'string' })
add('repeat format', 2, ANY, { returns: 'string' })
add('trimBoth', 1, 2, { returns: 'string' })
add('lcase ucase', 1, 1, { returns: 'string' })
add('MD5 SHA1 SHA256 cityHash64 sipHash64 xxHash64 murmurHash3_64', 1, ANY)
add('generateUUIDv4', 0, 1)
add('toValidUTF8 normalizeUTF8NFC', 1, 1, { returns: 'string' })
add('ngramDistance', 2, 2, { returns: 'number' })
// URLs.
add('domain domainWithoutWWW topLevelDomain protocol path pathFull queryString fragment cutWWW cutQueryString cutFragment', 1, 1, {
  returns: 'string',
})
add('extractURLParameter cutURLParameter', 2, 2, { returns: 'string' })
add('extractURLParameters extractURLParameterNames', 1, 1)
add('decodeURLComponent encodeURLComponent', 1, 1, { returns: 'string' })
// JSON.
add('JSONExtract', 2, ANY)
add('JSONExtractString JSONExtractRaw', 1, ANY, { returns: 'string' })
add('JSONExtractInt JSONExtractUInt JSONExtractFloat', 1, ANY, { returns: 'number' })
add('JSONExtractBool JSONHas', 1, ANY, { returns: 'bool' })
add('JSONExtractKeys JSONExtractArrayRaw JSONExtractKeysAndValues JSONExtractKeysAndValuesRaw', 1, ANY)
add('JSONLength', 1, ANY, { returns: 'number' })
add('JSONType', 1, ANY, { returns: 'string' })
add('isValidJSON', 1, 1, { returns: 'bool' })
// Dates and times.
add('now now64 today yesterday', 0, 1)
add('toDate toDateTime toDateTime64', 1, 3)
add('toStartOfDay toStartOfHour toStartOfMinute toStartOfMonth toStartOfQuarter toStartOfYear toMonday', 1, 2)
add('toStartOfWeek toStartOfFiveMinutes toStartOfFifteenMinutes toStartOfTenMinutes toStartOfSecond toStartOfISOYear', 1, 3)
add('toStartOfInterval', 2, 3)
add('toYear toQuarter toMonth toDayOfYear toDayOfMonth toDayOfWeek toHour toMinute toSecond toISOWeek toISOYear toWeek', 1, 3, {
  returns: 'number',
})
add('toYYYYMM toYYYYMMDD toYYYYMMDDhhmmss toUnixTimestamp toUnixTimestamp64Milli', 1, 2, { returns: 'number' })
add('fromUnixTimestamp fromUnixTimestamp64Milli', 1, 2)
add('toTimeZone', 2, 2)
add('timeZoneOf', 1, 1, { returns: 'string' })
add('formatDateTime', 2, 3, { returns: 'string' })
add('dateDiff date_diff dateAdd date_add dateSub date_sub timestampAdd timestampSub', 2, 4)
add('dateTrunc date_trunc', 2, 3)
add('addSeconds addMinutes addHours addDays addWeeks addMonths addQuarters addYears', 2, 2)
add('subtractSeconds subtractMinutes subtractHours subtractDays subtractWeeks subtractMonths subtractQuarters subtractYears', 2, 2)
add('toIntervalSecond toIntervalMinute toIntervalHour toIntervalDay toIntervalWeek toIntervalMonth toIntervalQuarter toIntervalYear', 1, 1)
add('parseDateTimeBestEffort parseDateTimeBestEffortOrNull parseDateTime64BestEffort parseDateTime64BestEffortOrNull', 1, 3)
add('toRelativeDayNum toRelativeHourNum toRelativeMonthNum toRelativeWeekNum', 1, 2, { returns: 'number' })
add('age', 3, 4, { returns: 'number' })
// Arrays, tuples and maps.
add('array tuple', 0, ANY)
add('map', 0, ANY)
add('arrayJoin', 1, 1)
add('has hasAll hasAny hasSubstr', 2, 2, { returns: 'bool' })
add('indexOf countEqual arrayElement', 2, 2)
add('arrayConcat', 1, ANY)
add('arraySlice', 2, 3)
add('range', 1, 3)
add('arrayMap arrayFilter arrayExists arrayAll arrayCount arraySum arrayAvg arrayMin arrayMax arrayFirst arrayLast', 1, ANY)
add('arrayFirstIndex arrayLastIndex arraySort arrayReverseSort arrayCumSum arraySplit arrayFill', 1, ANY)
add('arrayDistinct arrayUniq arrayEnumerate arrayEnumerateUniq arrayCompact arrayReverse arrayFlatten arrayZip', 1, ANY)
add('arrayPushBack arrayPushFront arrayPopBack arrayPopFront arrayResize arrayIntersect arrayReduce arrayDifference', 1, ANY)
add('arrayStringConcat emptyArrayString emptyArrayUInt8', 0, 2)
add('tupleElement', 2, 3)
add('untuple', 1, 1)
add('mapKeys mapValues mapContains', 1, 2)
add('sparkbar', 2, ANY)
// Window functions (WindowFunction nodes; lag/lead print as ClickHouse's lagInFrame/leadInFrame).
add('row_number rank dense_rank percent_rank cume_dist', 0, 0, { returns: 'number' })
add('ntile', 1, 1, { returns: 'number' })
add('first_value last_value nth_value', 1, 2)
add('lagInFrame leadInFrame', 1, 3)
// Aggregates.
const aggregate = (names: string, min: number, max: number, extra: Partial<FunctionSpec> = {}) =>
  add(names, min, max, { aggregate: true, ...extra })
aggregate('count', 0, 1, { returns: 'number' })
aggregate('countIf', 1, 2, { returns: 'number' })
aggregate('uniq uniqExact uniqHLL12 uniqCombined uniqCombined64 uniqTheta', 1, ANY, { returns: 'number' })
aggregate('uniqIf uniqExactIf', 2, ANY, { returns: 'number' })
aggregate('sum avg min max median stddevPop stddevSamp varPop varSamp', 1, 1, { numeric: true, returns: 'number' })
aggregate('sumIf avgIf minIf maxIf medianIf', 2, 2, { numeric: true, returns: 'number' })
aggregate('quantile quantileExact quantileTiming quantileTDigest', 1, 1, { numeric: true, returns: 'number' })
aggregate('quantiles quantilesExact quantilesTDigest', 1, 1, { numeric: true })
aggregate('quantileIf', 2, 2, { numeric: true, returns: 'number' })
aggregate('any anyLast anyHeavy argMin argMax argMinIf argMaxIf anyIf', 1, 3)
aggregate('groupArray groupUniqArray groupArraySample topK groupArrayIf groupUniqArrayIf', 1, 2)
aggregate('groupBitAnd groupBitOr groupBitXor', 1, 1, { returns: 'number' })
aggregate('corr covarPop covarSamp', 2, 2, { numeric: true, returns: 'number' })
aggregate('sumArray avgArray maxArray minArray countArray', 1, 1, { returns: 'number' })
aggregate('histogram', 1, 1)
aggregate('windowFunnel retention sequenceMatch sequenceCount', 1, ANY)

/** PostHog's renames (mapping.py): HogQL name → ClickHouse name. */
const RENAMES: Record<string, Partial<FunctionSpec> & { clickhouse: string }> = {
  toInt: { clickhouse: 'toInt64OrNull', min: 1, max: 1, returns: 'number' },
  toFloat: { clickhouse: 'toFloat64OrNull', min: 1, max: 1, returns: 'number' },
  toDecimal: { clickhouse: 'toDecimal64OrNull', min: 2, max: 2, returns: 'number' },
  trim: { clickhouse: 'trimBoth', min: 1, max: 2, returns: 'string' },
  lag: { clickhouse: 'lagInFrame', min: 1, max: 3 },
  lead: { clickhouse: 'leadInFrame', min: 1, max: 3 },
  array_agg: { clickhouse: 'groupArray', min: 1, max: 1, aggregate: true },
  // The parser's desugared CASE x WHEN …: printed by the printer itself.
}
for (const [name, spec] of Object.entries(RENAMES)) specs.set(name, { min: 0, max: ANY, ...spec })

/** Case-insensitive names PostHog also takes (SQL's usual spellings). */
const CASE_INSENSITIVE = new Set([
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'coalesce',
  'if',
  'lower',
  'upper',
  'length',
  'round',
  'abs',
  'concat',
  'substring',
  'trim',
  'now',
  'today',
])

/** The spec of a HogQL function name; undefined when it is not allowed. */
export function functionSpec(name: string): FunctionSpec | undefined {
  if (specs.has(name)) return specs.get(name)
  const lower = name.toLowerCase()
  return CASE_INSENSITIVE.has(lower) ? specs.get(lower) : undefined
}

/** Aggregate combinators PostHog accepts on any aggregate (countIf is listed itself; uniqIf, sumArray… by suffix). */
const COMBINATORS = ['If', 'Array', 'OrNull', 'OrDefault', 'Distinct'] as const

/** An aggregate under a combinator suffix (`maxIf`, `uniqArray`): its spec with the combinator's extra argument. */
export function aggregateSpec(name: string): FunctionSpec | undefined {
  const own = functionSpec(name)
  if (own) return own
  for (const suffix of COMBINATORS) {
    if (!name.endsWith(suffix)) continue
    const base = functionSpec(name.slice(0, -suffix.length))
    if (base?.aggregate)
      return {
        ...base,
        clickhouse: base.clickhouse + suffix,
        min: base.min + (suffix === 'If' ? 1 : 0),
        max: base.max + (suffix === 'If' ? 1 : 0),
      }
  }
  return undefined
}

/** Parametric aggregates (quantile(0.9)(x)) PostHog allows (functions/config.py). */
export const PARAMETRIC = new Set([
  'quantile',
  'quantiles',
  'quantileExact',
  'quantilesExact',
  'quantileTiming',
  'quantileTDigest',
  'quantilesTDigest',
  'quantileIf',
  'topK',
  'groupArraySample',
  'histogram',
  'windowFunnel',
  'retention',
  'sequenceMatch',
  'sequenceCount',
  'uniqHLL12',
  'uniqCombined',
  'uniqCombined64',
  'sparkbar',
])
