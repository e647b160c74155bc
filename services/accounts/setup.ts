// A start's part in accounts: the organization and its owner on a first start, from WREN_OWNER_EMAIL and
// WREN_OWNER_PASSWORD when both are set, else a one-time setup link for `npm start` to print.
import type { Config } from '../platform/config'
import { hashPassword } from './passwords'
import type { AccountStore } from './store'

export async function setUpAccounts(
  accounts: AccountStore,
  config: Pick<Config, 'ownerEmail' | 'ownerPassword'>,
): Promise<{ setupToken: string | null }> {
  if ((config.ownerEmail === null) !== (config.ownerPassword === null))
    throw new Error('WREN_OWNER_EMAIL and WREN_OWNER_PASSWORD go together: set both, or neither (and use the setup link).')
  const ownerWaits = !accounts.owner()?.passwordHash
  const owner =
    config.ownerEmail && config.ownerPassword && ownerWaits
      ? { email: config.ownerEmail, passwordHash: await hashPassword(config.ownerPassword) }
      : null
  return accounts.setUp({ organizationName: 'Default organization', owner })
}

/** Where the owner's setup link opens in the app. */
export function setupPath(token: string): string {
  return `/setup/${token}`
}
