// The service's notion of "now", injectable so tests and history replays can fix it.
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

export function fixedClock(at: Date): Clock {
  return { now: () => new Date(at.getTime()) }
}
