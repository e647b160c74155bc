// What a start makes when it finds nothing: the default project and its bootstrap key on an empty data
// directory, and (in the processes that serve the API, which answer the claims that make them once) the
// organization with its owner, or the owner's one-time setup token to print.
import type { Config } from '../platform/config'
import { bootstrapIfEmpty, type BootstrapResult } from '../projects/bootstrap'
import { setUpAccounts } from '../accounts/setup'
import type { Parts } from './services'

export async function firstStart(parts: Parts, config: Config): Promise<{ bootstrap: BootstrapResult | null; setupToken: string | null }> {
  const bootstrap = await bootstrapIfEmpty(await parts.stores.projects(), {
    projectApiKey: config.bootstrapProjectApiKey,
    personalApiKey: config.bootstrapPersonalApiKey,
  })
  const { setupToken } = parts.ctx.roles.runs('api') ? await setUpAccounts(await parts.stores.accounts(), config) : { setupToken: null }
  return { bootstrap, setupToken }
}
