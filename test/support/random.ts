// A seeded generator for tests and benchmarks: the same seed gives the same sequence, so a failing run can
// be replayed and every benchmark run sends the same workload.

export type Random = () => number

/** mulberry32: small, fast, uniform enough for workloads and fuzzing. */
export function seeded(seed: number): Random {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
