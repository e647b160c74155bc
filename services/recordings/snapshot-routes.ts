// GET /api/projects/:project_id/session_recordings/:session_id/snapshots: what the player loads
// (reference §4.4). Without `source` it lists the recording's blocks as blob_v2 sources (one per stored
// block, by start, numbered from 0); with source=blob_v2 and a range of those numbers it answers the
// blocks' JSONL lines ["<window id>", <rrweb event>], concatenated in order.
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { Tenants } from '../platform/tenancy'
import { wrenError } from '../platform/errors'
import { routesOf } from '../platform/http/route'
import type { ClickHouseBlockStore } from './blocks'
import type { ClickHouseClient } from '../platform/clickhouse'
import { visibleRecordings } from './list-query'
import type { ClickHouseMetadataStore } from './metadata-store'
import type { RecordingStateStore } from './recording-state'
import type { SharingStore } from './sharing-store'

/** Blocks one request may ask for (PostHog's limit for personal API keys). */
export const MAX_BLOCKS_PER_REQUEST = 20

/**
 * A stored block does not change, and the player reads it again on every seek: the browser that read it with a
 * key may keep it an hour (it held the key, and the data). `private`: never a shared cache, which cannot tell
 * who may read it. A sharing token's read is kept nowhere, so that turning sharing off stops it at once.
 */
const KEY_CACHE = 'private, max-age=3600'
const SHARED_CACHE = 'private, no-store'

const Source = Type.Object({
  source: Type.Enum(['blob_v2']),
  start_timestamp: Type.String({ format: 'date-time' }),
  end_timestamp: Type.String({ format: 'date-time' }),
  blob_key: Type.String({ description: 'The block’s number, from 0, in time order.' }),
})

export async function snapshotRoutes(
  app: FastifyInstance,
  deps: {
    projects: Tenants
    blocks: ClickHouseBlockStore
    sharing: SharingStore
    state: RecordingStateStore
    metadata: ClickHouseMetadataStore
    clickhouse: ClickHouseClient
  },
): Promise<void> {
  const route = routesOf(app, { projects: deps.projects, tag: 'session recordings', sharing: deps.sharing, clickhouse: deps.clickhouse })
  route({
    method: 'GET',
    url: '/session_recordings/:id/snapshots',
    summary: 'A recording’s snapshot sources, or the rrweb events of a range of them',
    description:
      'Without `source`: `{sources: [{source: "blob_v2", start_timestamp, end_timestamp, blob_key}]}`, one per stored block in time order. With `source=blob_v2&start_blob_key=i&end_blob_key=j`: the blocks i..j as JSONL, one `["<window id>", <rrweb event>]` per line.',
    access: { project: 'session_recording:read', sharedRecording: 'id' },
    personData: true,
    schema: {
      params: Type.Object({ id: Type.String({ description: 'The recording’s session id.' }) }),
      querystring: Type.Object({
        source: Type.Optional(Type.String({ description: 'blob_v2 to read blocks; absent to list them.' })),
        start_blob_key: Type.Optional(Type.String({ description: 'The first block to read (a number from the list).' })),
        end_blob_key: Type.Optional(
          Type.String({ description: `The last block to read, at most ${MAX_BLOCKS_PER_REQUEST - 1} after the first.` }),
        ),
        blob_key: Type.Optional(Type.String({ description: 'One block to read (start and end at once).' })),
        decompress: Type.Optional(
          Type.String({ description: 'true (the default): JSONL. false is not offered: blocks are stored as JSONL.' }),
        ),
      }),
      response: {
        200: Type.Union([
          Type.Object({ sources: Type.Array(Source) }),
          Type.String({ description: 'application/jsonl: ["<window id>", <rrweb event>] per line' }),
        ]),
      },
    },
    handler: async (request, reply, caller, hidden) => {
      const teamId = caller.project.id
      const sessionId = request.params.id
      const q = request.query
      const spans = await deps.blocks.spans(teamId, sessionId)
      if (spans.length === 0) {
        if (await deps.state.isDeleted(teamId, sessionId)) throw wrenError('recording_deleted')
        throw notFound(sessionId)
      }
      // A recording of a person hidden from the key answers as an unknown one. Its person is known from its
      // metadata: while none is stored yet, a key that has hidden persons is not shown the blocks either.
      if (hidden !== null && !(await deps.metadata.has(teamId, sessionId, visibleRecordings(hidden)))) throw notFound(sessionId)
      if (q.source === undefined || q.source === '') {
        return {
          sources: spans.map((s, i) => ({
            source: 'blob_v2' as const,
            start_timestamp: s.firstTimestamp,
            end_timestamp: s.lastTimestamp,
            blob_key: String(i),
          })),
        }
      }
      if (q.source !== 'blob_v2') throw wrenError('invalid_choice', `source must be blob_v2 (or absent to list the sources).`, 'source')
      if (q.decompress === 'false')
        throw wrenError(
          'unsupported',
          'decompress=false (length-prefixed snappy blocks) is not offered: Wren stores blocks as JSONL.',
          'decompress',
        )
      const start = blobKey(q.start_blob_key ?? q.blob_key, q.blob_key === undefined ? 'start_blob_key' : 'blob_key')
      const end = blobKey(q.end_blob_key ?? q.blob_key ?? q.start_blob_key, q.end_blob_key === undefined ? 'blob_key' : 'end_blob_key')
      if (end < start) throw wrenError('invalid_input', 'end_blob_key must not be less than start_blob_key.', 'end_blob_key')
      if (end - start + 1 > MAX_BLOCKS_PER_REQUEST)
        throw wrenError('invalid_input', `At most ${MAX_BLOCKS_PER_REQUEST} blocks per request.`, 'end_blob_key')
      if (end >= spans.length)
        throw wrenError(
          'invalid_input',
          `This recording has ${spans.length} blocks: blob keys run from 0 to ${spans.length - 1}.`,
          'end_blob_key',
        )
      const text = await deps.blocks.lines(teamId, sessionId, start, end)
      return reply
        .type('application/jsonl')
        .header('cache-control', caller.key === null ? SHARED_CACHE : KEY_CACHE)
        .send(text)
    },
  })
}

function notFound(sessionId: string) {
  return wrenError('not_found', `No recording with session id ${JSON.stringify(sessionId)} in this project.`)
}

function blobKey(value: string | undefined, attr: string): number {
  if (value === undefined || !/^\d{1,9}$/.test(value)) throw wrenError('invalid_input', `${attr} must be a block number (0, 1, …).`, attr)
  return Number(value)
}
