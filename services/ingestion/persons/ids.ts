// Integer person ids, unique across the instance as PostHog's are. Each partition of the ingest topic
// hands out its own residue class: with P partitions, partition p gives p+1, p+1+P, p+1+2P, … So any
// number of ingest processes, each owning some partitions, never hand out the same id, with no
// coordination between them; the embedded log has one partition and counts 1, 2, 3, …
//
// A partition's next id is one step past the highest stored id of its class, read with the replay bound
// like the rest of the person state: a batch replayed after a crash sees the same highest id and hands out
// the same ids again. Ids stored before this scheme (counted per project) are left as they are: they
// count towards their class's highest, so no new id can equal one of them.

/** The ids one partition of the ingest topic hands out. */
export interface PersonIdSpace {
  partition: number
  /** Partitions of the ingest topic: the step between two ids of one partition. */
  partitions: number
}

export function idSpaceKey(space: PersonIdSpace): string {
  return `${space.partition}/${space.partitions}`
}

/** The first id of the space greater than `highest` (the highest stored id of the space, 0 when none). */
export function firstIdAfter(space: PersonIdSpace, highest: number): number {
  const first = (space.partition % space.partitions) + 1
  if (highest < first) return first
  return first + (Math.floor((highest - first) / space.partitions) + 1) * space.partitions
}
