// The player pages' HTML: what a session id or sharing token puts in the page stays text, and the script reads
// back exactly the values the page was made with.
import { describe, expect, it } from 'vitest'
import { PLAYER_SCRIPT_URL, PLAYER_STYLES_URL, replayPage, sharedPlayerPage, type PlayerConfig } from './player-page'

const HOSTILE = `</script><script>alert(1)</script><!-- "quoted" & 'single' \u2028`

/** The page's <script type="application/json"> as the browser reads it: everything up to the first </script. */
function configOf(html: string): PlayerConfig {
  const match = /<script type="application\/json" id="wren-player-config">([\s\S]*?)<\/script/i.exec(html)
  expect(match).not.toBeNull()
  return JSON.parse(match![1]) as PlayerConfig
}

describe('player pages', () => {
  it('carries a hostile session id and token as data: no markup, and the script reads them back unchanged', () => {
    const shared = sharedPlayerPage({ projectId: 7, sessionId: HOSTILE, accessToken: HOSTILE })
    expect(configOf(shared)).toEqual({ projectId: 7, sessionId: HOSTILE, sharingAccessToken: HOSTILE, startAt: 0 })
    const page = replayPage({ projectId: 7, sessionId: HOSTILE, startAt: 0 })
    expect(configOf(page)).toEqual({ projectId: 7, sessionId: HOSTILE, sharingAccessToken: null, startAt: 0 })
    for (const html of [shared, page]) {
      // Only the page's own two scripts, and no comment the id could open.
      expect(html.match(/<script/gi)).toHaveLength(2)
      expect(html).not.toContain('<!--')
      expect(html).not.toContain('alert(1)</script>')
    }
    expect(page).toContain(
      '<title>Recording &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;!-- &quot;quoted&quot; &amp; &#39;single&#39;',
    )
  })

  it('loads only Wren’s own script and styles, and puts no key in the authenticated page', () => {
    const page = replayPage({ projectId: 1, sessionId: 's1', startAt: 0 })
    expect([...page.matchAll(/(?:src|href)="([^"]*)"/g)].map((m) => m[1])).toEqual([PLAYER_STYLES_URL, PLAYER_SCRIPT_URL])
    expect(page).not.toMatch(/https?:\/\//)
    expect(page).not.toMatch(/phx_[A-Za-z0-9]/) // a key, as opposed to the input's placeholder
    expect(configOf(page)).toEqual({ projectId: 1, sessionId: 's1', sharingAccessToken: null, startAt: 0 })
  })
})
