// A recording's sharing (reference §4.5): GET/PATCH /api/projects/:project_id/session_recordings/:id/sharing/
// and POST …/sharing/refresh/, and the public page GET /shared/:token that an enabled configuration's
// token opens. The token also opens that one recording's retrieve and snapshots as
// ?sharing_access_token= (the `sharedRecording` access of those routes, platform/http/route.ts).
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { Tenants } from '../platform/tenancy'
import { wrenError } from '../platform/errors'
import { routesOf } from '../platform/http/route'
import type { ClickHouseMetadataStore } from './metadata-store'
import type { ClickHouseClient } from '../platform/clickhouse'
import type { HiddenPersons } from '../platform/http/hidden-persons'
import { visibleRecordings } from './list-query'
import { playerPolicy, sharedPlayerPage } from './player-page'
import { newAccessToken, SHARING_SETTINGS, type SharingConfiguration, type SharingSettings, type SharingStore } from './sharing-store'
import { SETTINGS_DESCRIPTION, Sharing } from './schemas'

const RecordingId = Type.Object({ id: Type.String({ description: 'The recording’s session id.' }) })

function show(config: SharingConfiguration) {
  return {
    created_at: config.createdAt,
    enabled: config.enabled,
    access_token: config.accessToken,
    settings: config.settings,
    password_required: false,
    share_passwords: [],
  }
}

/** PostHog keeps the known switches (booleans) and drops other keys; a known switch that is not a boolean is refused. */
function settingsOf(value: unknown): SharingSettings | null {
  if (value === null) return null
  if (typeof value !== 'object' || Array.isArray(value))
    throw wrenError('invalid_input', 'settings must be an object of display switches, or null.', 'settings')
  const settings: SharingSettings = {}
  for (const name of SHARING_SETTINGS) {
    const v = (value as Record<string, unknown>)[name]
    if (v === undefined || v === null) continue
    if (typeof v !== 'boolean') throw wrenError('invalid_input', `settings.${name} must be a boolean.`, `settings.${name}`)
    settings[name] = v
  }
  return settings
}

export async function sharingRoutes(
  app: FastifyInstance,
  deps: { projects: Tenants; metadata: ClickHouseMetadataStore; sharing: SharingStore; clickhouse: ClickHouseClient },
): Promise<void> {
  const route = routesOf(app, { projects: deps.projects, tag: 'session recordings', clickhouse: deps.clickhouse })
  /**
   * The recording must exist in the project (and not be deleted), and its person not be hidden from the
   * key, before its sharing is read or written: 404 otherwise, as for an unknown recording. A token made
   * before the person was hidden keeps working: it is a grant of its own (route.ts, personData).
   */
  const configurationOf = async (teamId: number, sessionId: string, hidden: HiddenPersons | null): Promise<SharingConfiguration> => {
    if (!(await deps.metadata.has(teamId, sessionId, visibleRecordings(hidden))))
      throw wrenError('not_found', `No recording with session id ${JSON.stringify(sessionId)} in this project.`)
    return deps.sharing.get(teamId, sessionId)
  }

  route({
    method: 'GET',
    url: '/session_recordings/:id/sharing/',
    summary: 'A recording’s sharing configuration',
    description:
      'The saved configuration, or, when there is none, one built without saving (as PostHog does): disabled, `created_at` null, and a fresh `access_token` on every such GET. The token that counts is the one PATCH or refresh answers.',
    access: { project: 'sharing_configuration:read' },
    personData: true,
    schema: { params: RecordingId, response: { 200: Sharing } },
    handler: async (request, _reply, { project }, hidden) => show(await configurationOf(project.id, request.params.id, hidden)),
  })

  route({
    method: 'PATCH',
    url: '/session_recordings/:id/sharing/',
    summary: 'Enable or disable sharing of a recording',
    description:
      'Saves the configuration (building it first when there is none). Disabling stops its token at once; enabling again brings the same token back.',
    access: { project: 'sharing_configuration:write' },
    personData: true,
    schema: {
      params: RecordingId,
      body: Type.Object({
        enabled: Type.Optional(Type.Boolean()),
        settings: Type.Optional(Type.Unknown({ description: SETTINGS_DESCRIPTION })),
        password_required: Type.Optional(Type.Boolean({ description: 'Only false: Wren offers no password-protected shares.' })),
      }),
      response: { 200: Sharing },
    },
    handler: async (request, _reply, { project }, hidden) => {
      await configurationOf(project.id, request.params.id, hidden)
      const body = request.body
      if (body.password_required === true)
        throw wrenError('unsupported', 'Password-protected sharing is not offered by Wren.', 'password_required')
      const settings = body.settings !== undefined ? settingsOf(body.settings) : undefined
      // Onto the configuration as stored now: a racing enable's token, or a racing disable, is kept.
      const saved = await deps.sharing.update(project.id, request.params.id, () => ({
        ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
        ...(settings !== undefined ? { settings } : {}),
      }))
      return show(saved)
    },
  })

  route({
    method: 'POST',
    url: '/session_recordings/:id/sharing/refresh/',
    summary: 'Rotate a recording’s sharing token',
    description: 'Saves the configuration with a new `access_token`; the old one stops working at once. Enabled stays as it was.',
    access: { project: 'sharing_configuration:write' },
    personData: true,
    schema: { params: RecordingId, response: { 200: Sharing } },
    handler: async (request, _reply, { project }, hidden) => {
      await configurationOf(project.id, request.params.id, hidden)
      return show(await deps.sharing.update(project.id, request.params.id, () => ({ accessToken: newAccessToken() })))
    },
  })

  const publicRoute = routesOf(app, { projects: null, tag: 'session recordings' })
  publicRoute({
    method: 'GET',
    url: '/shared/:token',
    summary: 'The shared player page of a recording (HTML)',
    description: 'Answers 404 for a token no enabled sharing configuration holds (unknown, rotated and disabled alike).',
    access: { public: 'the access token of an enabled sharing configuration, in the path.' },
    schema: {
      params: Type.Object({ token: Type.String({ description: 'The sharing configuration’s access token.' }) }),
      response: { 200: Type.String({ description: 'An HTML page.' }) },
    },
    handler: async (request, reply) => {
      const token = request.params.token
      const shared = await deps.sharing.findEnabled(token)
      if (!shared) throw wrenError('not_found', 'Nothing is shared at this address.')
      return (
        reply
          .type('text/html; charset=utf-8')
          // The token is in the URL: keep it out of caches, Referer headers and search engines.
          .header('cache-control', 'no-store')
          .header('referrer-policy', 'no-referrer')
          .header('x-robots-tag', 'noindex')
          .header('content-security-policy', playerPolicy('shared'))
          .send(sharedPlayerPage({ projectId: shared.teamId, sessionId: shared.sessionId, accessToken: token }))
      )
    },
  })
}
