// The posthog-js snippet for this project and this Wren, which an empty project's pages show, and whether the
// project has any event yet (what decides that they show it).
import { get } from '../api'
import type { EventPage } from '../answers'
import { useSession } from '../session'
import { CopyButton } from './copy'
import { useLoad } from './load'

/** PostHog's HTML snippet (the stub that queues calls and loads posthog-js from api_host's /static/array.js, which Wren serves), pointed at this Wren. */
export function snippet(host: string, token: string): string {
  return `<script>
  ${STUB}
  posthog.init(${JSON.stringify(token)}, { api_host: ${JSON.stringify(host)} })
</script>`
}

const STUB = `!function(t,e){var o,n,p,r;e.__SV||(window.posthog && window.posthog.__loaded)||(window.posthog=e,e._i=[],e.init=function(i,s,a){function g(t,e){var o=e.split(".");2==o.length&&(t=t[o[0]],e=o[1]),t[e]=function(){t.push([e].concat(Array.prototype.slice.call(arguments,0)))}}(p=t.createElement("script")).type="text/javascript",p.crossOrigin="anonymous",p.async=!0,p.src=s.api_host.replace(".i.posthog.com","-assets.i.posthog.com")+"/static/array.js",(r=t.getElementsByTagName("script")[0]).parentNode.insertBefore(p,r);var u=e;for(void 0!==a?u=e[a]=[]:a="posthog",u.people=u.people||[],u.toString=function(t){var e="posthog";return"posthog"!==a&&(e+="."+a),t||(e+=" (stub)"),e},u.people.toString=function(){return u.toString(1)+".people (stub)"},o="init capture register register_once register_for_session unregister unregister_for_session getFeatureFlag getFeatureFlagPayload isFeatureEnabled reloadFeatureFlags updateEarlyAccessFeatureEnrollment getEarlyAccessFeatures on onFeatureFlags onSessionId getSurveys getActiveMatchingSurveys renderSurvey canRenderSurvey getNextSurveyStep identify setPersonProperties group resetGroups setPersonPropertiesForFlags resetPersonPropertiesForFlags setGroupPropertiesForFlags resetGroupPropertiesForFlags reset get_distinct_id getGroups get_session_id get_session_replay_url alias set_config startSessionRecording stopSessionRecording sessionRecordingStarted captureException loadToolbar get_property getSessionProperty createPersonProfile opt_in_capturing opt_out_capturing has_opted_in_capturing has_opted_out_capturing clear_opt_in_out_capturing debug".split(" "),n=0;n<o.length;n++)g(u,o[n]);e._i.push([i,s,a])},e.__SV=1)}(document,window.posthog||[]);`

/** The snippet for this project and this Wren, with a copy button (or why it is not shown). */
export function Snippet() {
  const { project } = useSession()
  // A key without project:read signs in knowing the project by id alone (main.tsx), not its project API key.
  if (!project.api_token)
    return (
      <p class="muted">The posthog-js snippet needs the project API key, which a key with the project:read scope can see in Settings.</p>
    )
  const code = snippet(location.origin, project.api_token)
  return (
    <>
      <pre class="snippet" data-testid="snippet">
        {code}
      </pre>
      <div class="inline">
        <CopyButton text={code} label="Copy snippet" />
      </div>
    </>
  )
}

/** Whether the project has any event yet, asked when `ask` (else null). */
export function useAnyEvents(ask = true) {
  const { path, project } = useSession()
  return useLoad(
    () => (ask ? get<EventPage>(path('events/?limit=1')).then((r) => r.results.length > 0) : Promise.resolve(null)),
    [project.id, ask],
  )
}
