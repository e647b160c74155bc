// What the session recording and sharing routes answer: declared once, for the routes, the OpenAPI document and the web app's types.
import { Type } from 'typebox'
import { AnyObject } from '../platform/http/schemas'
import { SHARING_SETTINGS } from './sharing-store'

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()])

// PostHog's MinimalPersonSerializer; as PostHog embeds it, distinct_ids holds the recording's distinct id only.
const Person = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    distinct_ids: Type.Array(Type.String()),
    properties: Type.Record(Type.String(), Type.Unknown()),
    created_at: Type.String({ format: 'date-time' }),
    uuid: Type.String({ format: 'uuid' }),
  },
  { title: 'Recording person' },
)

export const Recording = Type.Object(
  {
    id: Type.String({ description: 'The session id.' }),
    distinct_id: Type.String(),
    viewed: Type.Boolean(),
    recording_duration: Type.Number({ description: 'Seconds from the first event to the last.' }),
    active_seconds: Type.Number(),
    inactive_seconds: Type.Number(),
    start_time: Nullable(Type.String({ format: 'date-time' })),
    end_time: Nullable(Type.String({ format: 'date-time' })),
    click_count: Type.Integer(),
    keypress_count: Type.Integer(),
    mouse_activity_count: Type.Integer(),
    console_log_count: Type.Integer(),
    console_warn_count: Type.Integer(),
    console_error_count: Type.Integer(),
    start_url: Nullable(Type.String()),
    snapshot_source: Type.String(),
    snapshot_library: Nullable(Type.String()),
    ongoing: Type.Boolean({
      description: 'Data for it arrived in the last five minutes (PostHog’s max(_timestamp)), however old its events.',
    }),
    activity_score: Type.Number(),
    person: Type.Union([Person, Type.Null()], { description: 'The person of the recording’s distinct id, when it has one.' }),
    storage: Type.String({ description: 'Where the snapshots are kept: `object_storage`, as PostHog says for blocks it stores.' }),
  },
  { title: 'Session recording' },
)

/** What a sharing token's holder sees of the recording (PostHog's SessionRecordingSharedSerializer). */
export const SharedRecording = Type.Object(
  {
    id: Type.String(),
    recording_duration: Type.Number(),
    start_time: Nullable(Type.String({ format: 'date-time' })),
    end_time: Nullable(Type.String({ format: 'date-time' })),
  },
  { title: 'Shared session recording' },
)

/** The list's page: PostHog's `{results, has_next}` envelope, with the `next` and `previous` links every list has. */
export const RecordingPage = Type.Object({
  results: Type.Array(Recording),
  has_next: Type.Boolean(),
  next: Type.Union([Type.String(), Type.Null()]),
  previous: Type.Union([Type.String(), Type.Null()]),
})

export const SETTINGS_DESCRIPTION = `Display switches of the shared page: ${SHARING_SETTINGS.join(', ')} (booleans; other keys are dropped).`
const Settings = Type.Union(
  [Type.Object(Object.fromEntries(SHARING_SETTINGS.map((name) => [name, Type.Optional(Type.Boolean())]))), Type.Null()],
  { description: SETTINGS_DESCRIPTION },
)

export const Sharing = Type.Object(
  {
    created_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the configuration was first saved; null while it is only built (never enabled, disabled or rotated).',
    }),
    enabled: Type.Boolean(),
    access_token: Type.String({ description: 'Opens the recording at /shared/<access_token> while enabled. A secret.' }),
    settings: Settings,
    password_required: Type.Boolean({ description: 'Always false: Wren offers no password-protected shares.' }),
    // PostHog's list of share passwords; Wren has none (an empty list of objects, which Swagger UI can draw examples of).
    share_passwords: Type.Array(AnyObject(), { maxItems: 0, description: 'Always empty.' }),
  },
  { title: 'Sharing configuration' },
)
