// A local HTTP server that speaks the OpenAI chat-completions protocol (`POST /v1/chat/completions`) for
// the AI helpers' tests: it records every request (headers and JSON body) and answers from a queue of
// canned replies, so a test says exactly what "the model" answers and checks what Wren asked.
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface RecordedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: any
}

/** One reply: a completion whose message says `content` (or refuses), an HTTP error, or silence for `delayMs`. */
export type CannedReply =
  { content: string } | { refusal: string } | { status: number; body: string } | { delayMs: number; content: string }

export interface ChatCompletionsServer {
  /** Base URL to configure as WREN_AI_URL (ends in /v1). */
  url: string
  requests: RecordedRequest[]
  /** Queues replies, answered in order; a request with none queued gets a 500. */
  reply(...replies: CannedReply[]): void
  stop(): Promise<void>
}

export const completion = (message: Record<string, unknown>) =>
  JSON.stringify({
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 0,
    model: 'test-model',
    choices: [{ index: 0, message: { role: 'assistant', content: null, ...message }, finish_reason: 'stop' }],
  })

export async function startChatCompletionsServer(): Promise<ChatCompletionsServer> {
  const requests: RecordedRequest[] = []
  const queue: CannedReply[] = []
  const timers = new Set<NodeJS.Timeout>()
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      let body: unknown = text
      try {
        body = JSON.parse(text)
      } catch {
        // kept as text
      }
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body })
      const send = (status: number, payload: string) => res.writeHead(status, { 'content-type': 'application/json' }).end(payload)
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions')
        return send(404, JSON.stringify({ error: { message: 'no such route' } }))
      const next = queue.shift()
      if (!next) return send(500, JSON.stringify({ error: { message: 'no reply queued in the test' } }))
      if ('status' in next) return send(next.status, next.body)
      if ('refusal' in next) return send(200, completion({ refusal: next.refusal }))
      if ('delayMs' in next) {
        const timer = setTimeout(() => {
          timers.delete(timer)
          if (!res.destroyed) send(200, completion({ content: next.content }))
        }, next.delayMs)
        timers.add(timer)
        return
      }
      send(200, completion({ content: next.content }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    reply: (...replies) => queue.push(...replies),
    async stop() {
      for (const timer of timers) clearTimeout(timer)
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
