import { describe, expect, it } from 'vitest'
import { formatValue, PALETTE, shapeChart, shapeTotals, type TrendSeries } from './chart-data'

const series = (label: string, data: number[], extra: Partial<TrendSeries> = {}): TrendSeries => ({
  label,
  data,
  days: data.map((_, i) => `2026-01-0${i + 1}`),
  labels: data.map((_, i) => `${i + 1}-Jan-2026`),
  count: data.reduce((a, b) => a + b, 0),
  ...extra,
})

describe('shaping a trend for the chart', () => {
  it('draws one series per result over the buckets, labelled with Wren’s labels', () => {
    const chart = shapeChart([
      series('Chrome', [1, 2, 3], { breakdown_value: 'Chrome' }),
      series('Firefox', [0, 5, 1], { breakdown_value: 'Firefox' }),
    ])
    expect(chart.xLabels).toEqual(['1-Jan-2026', '2-Jan-2026', '3-Jan-2026'])
    expect(chart.series.map((s) => [s.label, s.values, s.dashed])).toEqual([
      ['Chrome', [1, 2, 3], false],
      ['Firefox', [0, 5, 1], false],
    ])
    expect(new Set(chart.series.map((s) => s.colour)).size).toBe(2)
  })

  it('keeps a breakdown value’s colour whatever else is drawn: another range, other values, their order', () => {
    const colourOf = (result: TrendSeries[], label: string) => shapeChart(result).series.find((s) => s.label === label)!.colour
    const chrome = series('Chrome', [1, 2], { breakdown_value: 'Chrome' })
    const firefox = series('Firefox', [3], { breakdown_value: 'Firefox' })
    const safari = series('Safari', [0, 1, 5], { breakdown_value: 'Safari' })
    const alone = colourOf([chrome], 'Chrome')
    expect(colourOf([firefox, chrome, safari], 'Chrome')).toBe(alone)
    expect(colourOf([safari, series('Chrome', [9, 9, 9, 9], { breakdown_value: 'Chrome' })], 'Chrome')).toBe(alone)
    // Every value of a full palette still gets a colour of its own.
    const many = Array.from({ length: PALETTE.length }, (_, i) => series(`v${i}`, [i], { breakdown_value: `v${i}` }))
    expect(new Set(shapeChart(many).series.map((s) => s.colour)).size).toBe(PALETTE.length)
    // Series without a breakdown take the palette in order.
    expect(shapeChart([series('a', [1]), series('b', [2])]).series.map((s) => s.colour)).toEqual([PALETTE[0], PALETTE[1]])
    // The table's and the number's colours are the chart's.
    expect(shapeTotals([firefox, chrome]).map((t) => t.colour)).toEqual(shapeChart([firefox, chrome]).series.map((s) => s.colour))
  })

  it('names and colours a formula’s lines by breakdown value', () => {
    const formula = (value: string, data: number[]) => series('A / B', data, { breakdown_value: value, action: null })
    const chart = shapeChart([formula('Chrome', [1, 2]), formula('Firefox', [0.5, 1])])
    expect(chart.series.map((s) => s.label)).toEqual(['A / B · Chrome', 'A / B · Firefox'])
    expect(chart.series[0].colour).not.toBe(chart.series[1].colour)
  })

  it('pairs a comparison’s previous period with its current one: same colour, dashed, named', () => {
    const chart = shapeChart([
      series('$pageview', [4, 5], { compare_label: 'current' }),
      series('$pageview', [1, 2], { compare_label: 'previous', days: ['2025-12-30', '2025-12-31'] }),
    ])
    expect(chart.xLabels).toEqual(['1-Jan-2026', '2-Jan-2026'])
    expect(chart.series[1]).toEqual({
      label: '$pageview (previous period)',
      values: [1, 2],
      colour: chart.series[0].colour,
      dashed: true,
      total: 3,
    })
  })

  it('pads a shorter series with gaps rather than shifting it', () => {
    const chart = shapeChart([series('a', [1, 2, 3]), series('b', [7])])
    expect(chart.series[1].values).toEqual([7, null, null])
  })

  it('falls back to days when the result has no labels, and to nothing for no result', () => {
    expect(shapeChart([{ ...series('a', [1]), labels: undefined }]).xLabels).toEqual(['2026-01-01'])
    expect(shapeChart([])).toEqual({ xLabels: [], days: [], series: [] })
  })

  it('names an empty breakdown value', () => {
    expect(shapeChart([series('', [1])]).series[0].label).toBe('(empty)')
    // Events without the property: PostHog's null label, named as such (with a series' name before it too).
    expect(shapeChart([series('$$_posthog_breakdown_null_$$', [1])]).series[0].label).toBe('(none)')
    expect(shapeTotals([series('signed_up - $$_posthog_breakdown_null_$$', [1])])[0].label).toBe('signed_up - (none)')
  })
})

describe('totals for the number and table displays', () => {
  it('take aggregated_value when Wren gives one, else the count', () => {
    expect(shapeTotals([series('a', [], { aggregated_value: 42, count: 0 }), series('b', [1, 2])]).map((t) => [t.label, t.value])).toEqual([
      ['a', 42],
      ['b', 3],
    ])
  })

  it('formats numbers for people', () => {
    expect(formatValue(1234567)).toBe('1,234,567')
    expect(formatValue(2.3456)).toBe('2.35')
    expect(formatValue(null)).toBe('–')
  })
})
