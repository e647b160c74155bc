// Dead letters: log messages a processor could not handle, kept (never dropped) with their error so a
// person can look at them and, after a fix, replay them. One store in both modes, ClickHouse's
// dead_letters table; cluster mode also feeds the Kafka topic wren_dead_letters for other consumers.
// A letter is named by where its message was, `topic/partition/offset`, and is written under an insert
// deduplication token named after the batch that found it, so a replayed batch records it once (a replay
// writes the letters the table lacks: insertMissing). Each processor (ingestion on wren_ingest, recordings on
// wren_snapshots) records through its own recorder(), which names its consumer group; a replay appends a
// payload to its topic under the key capture gave it.
import type { ClickHouseClient } from '../platform/clickhouse'
import { insertMissing, insertRows, queryRows } from '../platform/clickhouse'
import type { Clock } from '../platform/clock'
import type { Log, LogBatch } from '../platform/log/log'
import type { KafkaLog } from '../platform/log/kafka/kafka-log'
import { decodeIngest, decodeSnapshot } from '../platform/log/contract'
import { handedOutBefore, TOPICS } from '../platform/log/log'
import { SerialQueue } from '../platform/serial'
import type { DeadLetter, DeadLetterRecorder } from '../platform/processing/runner'

/** Cluster mode: where letters also go once stored, with the consumer group that found them. */
export type DeadLetterFeed = (group: string, batch: LogBatch, letters: DeadLetter[]) => Promise<void>

/** A letter as listed: everything but its payload, of which only a preview is read. */
export interface DeadLetterRecord {
  id: string
  topic: string
  partition: number
  offset: number
  teamId: number | null
  group: string
  error: string
  at: string
  size: number
  payloadPreview: string
  replayedAt: string | null
}

export type ReplaySelection = { ids: string[] } | { all: true }

const PREVIEW_CHARS = 1_000
/**
 * How much of a payload a listing reads (a multiple of 3, so its base64 is a whole prefix): a payload
 * this small is decoded whole, as before; a larger one is previewed from these bytes as text. A page of
 * 1000 letters reads at most ~16 MB whatever the payloads' sizes.
 */
const PREVIEW_HEAD_BYTES = 3 * 4096
/** A replay reads and appends payloads this many bytes (or letters) at a time, so its memory stays bounded. */
const REPLAY_PAGE_BYTES = 8 << 20
const REPLAY_PAGE_LETTERS = 500

/** A letter's key, size and replay state: what a replay plans its pages from. */
interface LetterKey {
  id: string
  topic: string
  partition: number
  offset: number
  teamId: number | null
  size: number
  replayedAt: string | null
}

interface LetterRow {
  topic: string
  partition: number
  offset: number
  team_id: number | null
  consumer_group: string
  error: string
  at: string
  size: number
  payload: string
  replayed_at: string | null
}

export class DeadLetterStore {
  /** Replays one at a time, so two replays of the same letters cannot both append them. */
  private readonly replays = new SerialQueue()

  constructor(
    private readonly client: ClickHouseClient,
    private readonly clock: Clock,
    /** Cluster mode: where letters are also sent once stored (the Kafka dead-letter topic). */
    private readonly feed?: DeadLetterFeed,
  ) {}

  /** The recorder of one processor's consumer group (the group is kept with each letter). */
  recorder(group: string): DeadLetterRecorder {
    return {
      record: (batch, letters) => this.record(group, batch, letters),
      offsetsIn: (topic, partition, first, last) => this.offsetsIn(topic, partition, first, last),
    }
  }

  private async record(group: string, batch: LogBatch, letters: DeadLetter[]): Promise<void> {
    if (letters.length === 0) return
    const token = `dead_letters:${batch.topic}:${batch.partition}:${batch.firstOffset}-${batch.lastOffset}`
    const at = this.clock.now().toISOString()
    const rows = letters.map((d) => ({
      topic: batch.topic,
      partition: batch.partition,
      offset: d.offset,
      error: d.error,
      payload: d.payload.toString('base64'),
      at,
      team_id: d.teamId,
      consumer_group: group,
      size: d.payload.length,
    }))
    if (handedOutBefore(batch)) {
      // The letters the table lacks (a copy written twice folds: ReplacingMergeTree on topic, partition, offset).
      const held = await this.offsetsIn(batch.topic, batch.partition, batch.firstOffset, batch.lastOffset)
      await insertMissing(this.client, 'dead_letters', rows, held.map(String), (r) => String(r.offset), token)
    } else await insertRows(this.client, 'dead_letters', rows, token)
    if (this.feed) await this.feed(group, batch, letters)
  }

  private async offsetsIn(topic: string, partition: number, first: number, last: number): Promise<number[]> {
    const rows = await queryRows<{ offset: number }>(
      this.client,
      'SELECT DISTINCT offset FROM dead_letters WHERE topic = {topic:String} AND partition = {partition:UInt32} AND offset BETWEEN {first:UInt64} AND {last:UInt64}',
      { topic, partition, first, last },
    )
    return rows.map((r) => Number(r.offset))
  }

  /** Newest first; reads only the first bytes of each payload (its preview), never the whole. */
  async list(page: { limit: number; offset: number }): Promise<{ count: number; results: DeadLetterRecord[] }> {
    const [{ count }] = await queryRows<{ count: number }>(
      this.client,
      `SELECT count() AS count FROM (SELECT DISTINCT topic, partition, offset FROM dead_letters)`,
    )
    const rows = await this.select(
      'substring(payload, 1, {head_chars:UInt32})',
      'ORDER BY at DESC, topic, partition, offset DESC LIMIT {limit:UInt32} OFFSET {skip:UInt32}',
      { limit: page.limit, skip: page.offset, head_chars: (PREVIEW_HEAD_BYTES / 3) * 4 },
    )
    return {
      count: Number(count),
      results: rows.map((r) => {
        const letter = recordOf(r)
        return { ...letter, payloadPreview: payloadPreview(letter.topic, Buffer.from(r.payload, 'base64'), letter.size) }
      }),
    }
  }

  /**
   * Appends the payloads of the selected letters not yet replayed to their topic again, then marks them
   * replayed: replaying twice appends once. Payloads are read a page at a time (REPLAY_PAGE_BYTES), each
   * page appended and marked before the next is read. (A crash between a page's append and its mark
   * appends that page again on the next replay; events keep their uuids, which ClickHouse folds.)
   */
  replay(log: Log, selection: ReplaySelection): Promise<{ replayed: string[] }> {
    return this.replays.run(async () => {
      const keys = 'all' in selection ? await this.keys('1', {}) : await this.keysOf(selection.ids)
      const replayed: string[] = []
      for (const page of pagesOf(keys.filter((k) => k.replayedAt === null))) {
        const payloads = await this.payloadsOf(page)
        const letters = page.filter((k) => payloads.has(k.id))
        const byTopic = new Map<string, Array<{ key: string; value: Buffer }>>()
        for (const l of letters) {
          const payload = payloads.get(l.id)!
          const key = messageOf(l.topic, payload)?.key ?? String(l.teamId ?? 0)
          byTopic.set(l.topic, [...(byTopic.get(l.topic) ?? []), { key, value: payload }])
        }
        for (const [topic, messages] of byTopic) await log.append(topic, messages)
        const at = this.clock.now().toISOString()
        await insertRows(
          this.client,
          'dead_letter_replays',
          letters.map((l) => ({ topic: l.topic, partition: l.partition, offset: l.offset, replayed_at: at })),
        )
        replayed.push(...letters.map((l) => l.id))
      }
      return { replayed }
    })
  }

  private keysOf(ids: string[]): Promise<LetterKey[]> {
    const keys = ids.map(parseId).filter((k): k is NonNullable<typeof k> => k !== null)
    if (keys.length === 0) return Promise.resolve([])
    return this.keys(BY_KEYS, {
      topics: keys.map((k) => k.topic),
      partitions: keys.map((k) => k.partition),
      offsets: keys.map((k) => k.offset),
    })
  }

  private async keys(where: string, params: Record<string, unknown>): Promise<LetterKey[]> {
    const rows = await this.select("''", 'ORDER BY topic, partition, offset', params, where)
    return rows.map(recordOf)
  }

  /** The whole payloads of one page of letters, by id. */
  private async payloadsOf(page: LetterKey[]): Promise<Map<string, Buffer>> {
    const rows = await this.select(
      'payload',
      '',
      { topics: page.map((k) => k.topic), partitions: page.map((k) => k.partition), offsets: page.map((k) => k.offset) },
      BY_KEYS,
    )
    return new Map(rows.map((r) => [`${r.topic}/${r.partition}/${r.offset}`, Buffer.from(r.payload, 'base64')]))
  }

  /** One row a letter (a letter recorded twice is read once), `payload` being what `payloadSql` reads of it. */
  private select(payloadSql: string, tail: string, params: Record<string, unknown>, where = '1'): Promise<LetterRow[]> {
    return queryRows<LetterRow>(
      this.client,
      `SELECT topic, partition, offset, team_id, consumer_group, error, at, size, payload, replayed_at
       FROM (
         SELECT topic, partition, offset, any(team_id) AS team_id, any(consumer_group) AS consumer_group, any(error) AS error, min(at) AS at, any(size) AS size, any(${payloadSql}) AS payload
         FROM dead_letters WHERE ${where} GROUP BY topic, partition, offset
       ) AS d
       LEFT JOIN (SELECT topic, partition, offset, toNullable(min(replayed_at)) AS replayed_at FROM dead_letter_replays GROUP BY topic, partition, offset) AS r
       USING (topic, partition, offset)
       ${tail}`,
      params,
    )
  }
}

const BY_KEYS = '(topic, partition, offset) IN arrayZip({topics:Array(String)}, {partitions:Array(UInt32)}, {offsets:Array(UInt64)})'

function recordOf(r: LetterRow): Omit<DeadLetterRecord, 'payloadPreview'> & LetterKey {
  return {
    id: `${r.topic}/${r.partition}/${r.offset}`,
    topic: r.topic,
    partition: Number(r.partition),
    offset: Number(r.offset),
    teamId: r.team_id === null ? null : Number(r.team_id),
    group: r.consumer_group,
    error: r.error,
    at: r.at,
    size: Number(r.size),
    replayedAt: r.replayed_at,
  }
}

/** Consecutive runs of letters holding at most REPLAY_PAGE_BYTES of payload (or one letter larger than that). */
function* pagesOf(letters: LetterKey[]): Generator<LetterKey[]> {
  let page: LetterKey[] = []
  let bytes = 0
  for (const l of letters) {
    if (page.length > 0 && (bytes + l.size > REPLAY_PAGE_BYTES || page.length >= REPLAY_PAGE_LETTERS)) {
      yield page
      page = []
      bytes = 0
    }
    page.push(l)
    bytes += l.size
  }
  if (page.length > 0) yield page
}

/** `topic/partition/offset`, or null for anything else. */
function parseId(id: unknown): { topic: string; partition: number; offset: number } | null {
  const match = typeof id === 'string' ? /^([A-Za-z0-9._-]+)\/(\d+)\/(\d+)$/.exec(id) : null
  return match ? { topic: match[1], partition: Number(match[2]), offset: Number(match[3]) } : null
}

/** What dead letters know of each topic's messages: their project, the key capture appended them under, and their content. */
const MESSAGES: Record<string, (payload: Buffer) => { teamId: number; key: string; content: unknown }> = {
  [TOPICS.ingest]: (payload) => {
    const item = decodeIngest(payload)
    const teamId = item.kind === 'event' ? item.event.teamId : item.command.teamId
    return { teamId, key: String(teamId), content: item }
  },
  [TOPICS.snapshots]: (payload) => {
    const item = decodeSnapshot(payload)
    return { teamId: item.teamId, key: `${item.teamId}:${item.sessionId}`, content: item }
  },
}

/** A message of `topic` decoded, or null when it does not decode. */
function messageOf(topic: string, payload: Buffer): { teamId: number; key: string; content: unknown } | null {
  try {
    return MESSAGES[topic]?.(payload) ?? null
  } catch {
    return null
  }
}

/**
 * What a person sees of a payload: the decoded message as JSON, or its bytes as text, cut short. Given
 * only the first bytes of a larger payload (`size` its whole length), those bytes as text: a message cut
 * short does not decode.
 */
export function payloadPreview(topic: string, payload: Buffer, size = payload.length): string {
  const message = payload.length >= size ? messageOf(topic, payload) : null
  const text = message ? JSON.stringify(message.content) : payload.toString('utf8')
  return text.length > PREVIEW_CHARS || payload.length < size ? `${text.slice(0, PREVIEW_CHARS)}…` : text
}

/** Cluster mode: the same letters also go to the Kafka dead-letter topic, keyed by their origin. */
export function kafkaDeadLetterFeed(log: KafkaLog): DeadLetterFeed {
  return (group, batch, letters) =>
    log.deadLetter(
      letters.map((d) => ({
        source: { topic: batch.topic, partition: batch.partition, offset: d.offset },
        error: d.error,
        payload: d.payload,
        group,
      })),
    )
}
