// PostHog's HTML snippet as its docs give it: the stub that queues calls and loads `${api_host}/static/array.js`.
// Test pages paste it as a user would, then call posthog.init(token, {api_host: <Wren>, …}).
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
export const POSTHOG_SNIPPET = `!function(t,e){var o,n,p,r;e.__SV||(window.posthog && window.posthog.__loaded)||(window.posthog=e,e._i=[],e.init=function(i,s,a){function g(t,e){var o=e.split(".");2==o.length&&(t=t[o[0]],e=o[1]),t[e]=function(){t.push([e].concat(Array.prototype.slice.call(arguments,0)))}}(p=t.createElement("script")).type="text/javascript",p.crossOrigin="anonymous",p.async=!0,p.src=s.api_host.replace(".i.posthog.com","-assets.i.posthog.com")+"/static/array.js",(r=t.getElementsByTagName("script")[0]).parentNode.insertBefore(p,r);var u=e;for(void 0!==a?u=e[a]=[]:a="posthog",u.people=u.people||[],u.toString=function(t){var e="posthog";return"posthog"!==a&&(e+="."+a),t||(e+=" (stub)"),e},u.people.toString=function(){return u.toString(1)+".people (stub)"},o="init capture register register_once register_for_session unregister unregister_for_session getFeatureFlag getFeatureFlagPayload isFeatureEnabled reloadFeatureFlags updateEarlyAccessFeatureEnrollment getEarlyAccessFeatures on onFeatureFlags onSessionId getSurveys getActiveMatchingSurveys renderSurvey canRenderSurvey getNextSurveyStep identify setPersonProperties group resetGroups setPersonPropertiesForFlags resetPersonPropertiesForFlags setGroupPropertiesForFlags resetGroupPropertiesForFlags reset get_distinct_id getGroups get_session_id get_session_replay_url alias set_config startSessionRecording stopSessionRecording sessionRecordingStarted captureException loadToolbar get_property getSessionProperty createPersonProfile opt_in_capturing opt_out_capturing has_opted_in_capturing has_opted_out_capturing clear_opt_in_out_capturing debug".split(" "),n=0;n<o.length;n++)g(u,o[n]);e._i.push([i,s,a])},e.__SV=1)}(document,window.posthog||[]);`

/**
 * The <script> of a test page: the snippet, then posthog.init(token, …) pointed at `apiHost`, each event its own
 * request (request_batching off) and the user-agent filter off (Chromium under automation reports
 * navigator.webdriver, which posthog-js treats as a bot). `options`: more members of init's config, as JavaScript.
 */
export function snippetScript(token: string, apiHost: string, options = ''): string {
  return `<script>
  ${POSTHOG_SNIPPET}
  posthog.init(${JSON.stringify(token)}, {
    api_host: ${JSON.stringify(apiHost)},
    request_batching: false,
    opt_out_useragent_filter: true,
    ${options}
  })
</script>`
}

export interface Site {
  /** http://127.0.0.1:<port> */
  origin: string
  close(): Promise<void>
}

/** A site on 127.0.0.1 for Chromium to visit: `pages` by path (a favicon: 204; anything else: 404). */
export async function serveSite(pages: Record<string, string>): Promise<Site> {
  const server = createServer((req, res) => {
    const html = pages[req.url ?? '']
    if (html !== undefined) res.writeHead(200, { 'content-type': 'text/html' }).end(html)
    else res.writeHead(req.url === '/favicon.ico' ? 204 : 404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
