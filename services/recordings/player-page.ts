// The shared player page (GET /shared/:token, sharing-routes.ts): the HTML that plays one shared
// recording. Placeholder body: the player's own change replaces it with the real page (keeping this
// signature); for now the page carries the player's mount point and its configuration.

/** The page for one shared recording; `accessToken` is what the page's requests send as ?sharing_access_token=. */
export function sharedPlayerPage(options: { projectId: number; sessionId: string; accessToken: string }): string {
  // `<` escaped so that no value can close the script element.
  const config = JSON.stringify(options).replace(/</g, '\\u003c')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Shared recording</title>
</head>
<body>
<div id="player"></div>
<script type="application/json" id="wren-player-config">${config}</script>
</body>
</html>
`
}
