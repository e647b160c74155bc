import { describe, expect, it } from 'vitest'
import { LagEstimator, lagJson, lagProblems, type IngestionLag } from './ingestion-lag'

describe('LagEstimator', () => {
  it('measures lag in messages and in seconds since the oldest waiting message was appended', () => {
    const lag = new LagEstimator()
    lag.record(0, 0, 0)
    expect([lag.messages(), lag.seconds(0), lag.stalledSeconds(0)]).toEqual([0, 0, 0])
    lag.record(1_000, 100, 0) // 100 appended by t=1 s
    lag.record(2_000, 300, 50) // 200 more by t=2 s; 50 committed
    expect(lag.messages()).toBe(250)
    expect(lag.seconds(2_000)).toBe(1) // offset 50 was there at t=1 s
    lag.record(3_000, 300, 150) // offsets 150.. were appended by t=2 s
    expect(lag.seconds(3_000)).toBe(1)
    expect(lag.stalledSeconds(3_000)).toBe(0)
    lag.record(4_000, 300, 300)
    expect([lag.messages(), lag.seconds(4_000), lag.stalledSeconds(4_000)]).toEqual([0, 0, 0])
  })

  it('counts a stall from the last time the committed offset moved while messages waited, not idle time', () => {
    const lag = new LagEstimator()
    lag.record(0, 10, 10)
    lag.record(60_000, 10, 10) // a minute idle
    lag.record(61_000, 20, 10) // messages arrive, nothing is committed from then on
    lag.record(62_000, 30, 10)
    lag.record(70_000, 30, 10)
    expect(lag.stalledSeconds(70_000)).toBe(9)
    expect(lag.seconds(70_000)).toBe(9)
    lag.record(71_000, 30, 20) // progress
    expect(lag.stalledSeconds(71_000)).toBe(0)
    expect(lag.seconds(71_000)).toBe(9) // offset 20 was appended by t=62 s
  })

  it('keeps its samples bounded through a long stall', () => {
    const lag = new LagEstimator()
    for (let t = 0; t <= 10_000; t++) lag.record(t * 1000, t + 1, 0)
    expect(lag.seconds(10_000_000)).toBe(10_000)
    expect(lag.stalledSeconds(10_000_000)).toBe(10_000)
  })
})

describe('lagProblems', () => {
  const lag = (over: Partial<IngestionLag>): IngestionLag => ({
    messages: 5,
    seconds: 0,
    stalledSeconds: 0,
    endOffset: 5,
    committedOffset: 0,
    logBytes: null,
    sampledAt: null,
    error: null,
    ...over,
  })
  it('names a stall and a lag past their bounds, with the numbers', () => {
    const bounds = { maxLagSeconds: 300, stallSeconds: 60 }
    expect(lagProblems(lag({ seconds: 30, stalledSeconds: 30 }), bounds, 'ingestion')).toEqual([])
    const problems = lagProblems(lag({ seconds: 400, stalledSeconds: 61 }), bounds, 'ingestion')
    expect(problems.map((p) => p.code)).toEqual(['ingestion_stalled', 'ingestion_lagging'])
    expect(problems[0].detail).toContain('61 s while 5 messages wait')
    expect(problems[1].detail).toContain('400 s ago')
    // The recordings processor's lag is named as its own.
    expect(lagProblems(lag({ stalledSeconds: 61 }), bounds, 'recordings')).toEqual([
      { code: 'recordings_stalled', detail: expect.stringMatching(/^recordings has committed nothing for 61 s/) },
    ])
  })
  it('names stored events that wait for their copy past the lag bound, though the log is caught up', () => {
    const bounds = { maxLagSeconds: 300, stallSeconds: 60 }
    const caughtUp = lag({ messages: 0, committedOffset: 5 })
    expect(lagProblems(caughtUp, bounds, 'ingestion', { parts: 2, seconds: 120 })).toEqual([])
    expect(lagProblems(caughtUp, bounds, 'ingestion', { parts: 2, seconds: 301 })).toEqual([
      { code: 'ingestion_lagging', detail: expect.stringMatching(/^the events of 2 stored parts with wide persons wait .* 301 s/) },
    ])
    expect(lagJson(caughtUp, { parts: 2, seconds: 301.04 })).toMatchObject({
      lag_messages: 0,
      copies_waiting: 2,
      copies_waiting_seconds: 301,
    })
  })
})
