// A recording's sharing configuration (reference §4.5), in ClickHouse (session_recording_sharing,
// schemas/clickhouse/035): one row per write, the latest version per team and session wins.
//
// Why ClickHouse and not the configuration log: a token is checked on every request that shows one, and
// disabling or rotating must hold at once in every api process. The configuration log reaches the other
// processes only when they next read the topic, so a rotated token would keep working there for a moment;
// a read of the shared table per check does not. The table stays small (one row per shared recording and
// write), and the check reads it by the token's hash. Writes are compare-and-set on the version through the
// configuration log's claims (platform/versioned-update.ts), so a disable racing a rotation is never undone and
// two first enables end with one token.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { ClickHouseClient } from '../platform/clickhouse'
import { insertRows, queryRows } from '../platform/clickhouse'
import type { Clock } from '../platform/clock'
import type { SharedRecording, SharingTokens } from '../platform/http/auth'
import type { ConfigLog } from '../platform/log/config-log'
import { VersionedUpdates } from '../platform/versioned-update'

/** PostHog's SharingConfigurationSettings: display switches of the shared page, each a boolean. */
export const SHARING_SETTINGS = ['detailed', 'hideExtraDetails', 'legend', 'noHeader', 'showInspector', 'whitelabel'] as const
export type SharingSettings = Partial<Record<(typeof SHARING_SETTINGS)[number], boolean>>

export interface SharingConfiguration {
  teamId: number
  sessionId: string
  enabled: boolean
  accessToken: string
  settings: SharingSettings | null
  /** ISO instant of the first save; null while the configuration is only built, not saved. */
  createdAt: string | null
  /** 0 while not saved. */
  version: number
}

/** A new access token: 32 random bytes, URL-safe base64 (43 characters; PostHog's token_urlsafe(22) has 22 bytes). */
export function newAccessToken(): string {
  return randomBytes(32).toString('base64url')
}

const sha256 = (value: string): Buffer => createHash('sha256').update(value).digest()

interface Row {
  team_id: number
  session_id: string
  latest_enabled: number
  latest_token: string
  latest_settings: string
  first_created_at: string
  latest_version: number
}

/** The latest version of each configuration the WHERE clause picks (it names rows by team and session). */
const LATEST = `SELECT team_id, session_id,
         argMax(enabled, version) AS latest_enabled,
         argMax(access_token, version) AS latest_token,
         argMax(settings, version) AS latest_settings,
         min(created_at) AS first_created_at,
         max(version) AS latest_version
  FROM session_recording_sharing`

export class SharingStore implements SharingTokens {
  private readonly updates: VersionedUpdates

  constructor(
    private readonly client: ClickHouseClient,
    private readonly clock: Clock,
    config: Pick<ConfigLog, 'claimVersion'>,
  ) {
    this.updates = new VersionedUpdates(config)
  }

  /** The saved configuration of a recording, or one built (not saved) with a fresh token, as PostHog's GET does. */
  async get(teamId: number, sessionId: string): Promise<SharingConfiguration> {
    const [row] = await queryRows<Row>(
      this.client,
      `${LATEST} WHERE team_id = {team:Int64} AND session_id = {session:String} GROUP BY team_id, session_id`,
      { team: teamId, session: sessionId },
    )
    if (row) return fromRow(row)
    return { teamId, sessionId, enabled: false, accessToken: newAccessToken(), settings: null, createdAt: null, version: 0 }
  }

  /**
   * Applies `change` to the configuration as stored now (or as built, when it was never saved) and saves
   * it as the newest version; `change` answers null when there is nothing to write. The configuration
   * afterwards: what is stored.
   */
  async update(
    teamId: number,
    sessionId: string,
    change: (current: SharingConfiguration) => Partial<Pick<SharingConfiguration, 'enabled' | 'accessToken' | 'settings'>> | null,
  ): Promise<SharingConfiguration> {
    const saved = await this.updates.apply<SharingConfiguration>({
      object: { kind: 'sharing', teamId, sessionId },
      read: () => this.get(teamId, sessionId),
      change: (current) => {
        const changed = change(current)
        return changed && { ...current, ...changed, createdAt: current.createdAt ?? this.clock.now().toISOString() }
      },
      write: (next) => this.insert(next),
    })
    if (!saved) throw new Error('a sharing configuration is always read')
    return saved
  }

  private async insert(saved: SharingConfiguration): Promise<void> {
    await insertRows(this.client, 'session_recording_sharing', [
      {
        team_id: saved.teamId,
        session_id: saved.sessionId,
        enabled: saved.enabled ? 1 : 0,
        access_token: saved.accessToken,
        access_token_sha256: sha256(saved.accessToken).toString('hex'),
        settings: saved.settings ? JSON.stringify(saved.settings) : '',
        created_at: saved.createdAt,
        version: saved.version,
      },
    ])
  }

  /** Turns a recording's sharing off, if it was ever saved (a deleted recording's). */
  async disable(teamId: number, sessionId: string): Promise<void> {
    await this.update(teamId, sessionId, (current) => (current.version > 0 && current.enabled ? { enabled: false } : null))
  }

  /**
   * The recording an enabled configuration with exactly this token shares, or null. Rows are found by the
   * token's hash; the configuration's latest version must be enabled and still hold the token (compared
   * in constant time), so a rotated or disabled token stops at once.
   */
  async findEnabled(token: string): Promise<SharedRecording | null> {
    if (token.length === 0 || token.length > 256) return null
    const given = sha256(token)
    const rows = await queryRows<Row>(
      this.client,
      `${LATEST}
       WHERE (team_id, session_id) IN (SELECT team_id, session_id FROM session_recording_sharing WHERE access_token_sha256 = {hash:String})
       GROUP BY team_id, session_id`,
      { hash: given.toString('hex') },
    )
    for (const row of rows) {
      if (Number(row.latest_enabled) === 1 && timingSafeEqual(sha256(row.latest_token), given))
        return { teamId: Number(row.team_id), sessionId: row.session_id }
    }
    return null
  }
}

function fromRow(row: Row): SharingConfiguration {
  return {
    teamId: Number(row.team_id),
    sessionId: row.session_id,
    enabled: Number(row.latest_enabled) === 1,
    accessToken: row.latest_token,
    settings: row.latest_settings ? (JSON.parse(row.latest_settings) as SharingSettings) : null,
    createdAt: row.first_created_at,
    version: Number(row.latest_version),
  }
}
