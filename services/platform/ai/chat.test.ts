// The chat model client and askForJson against a local server speaking the chat-completions protocol
// (test/support/chat-completions-server.ts): what is sent, what comes back, retries and every failure.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startChatCompletionsServer, type ChatCompletionsServer } from '../../../test/support/chat-completions-server'
import type { AiConfig } from '../config'
import { WrenError } from '../errors'
import { askForJson, chatModel, type JsonShape } from './chat'

const SHAPE: JsonShape = {
  name: 'answer',
  schema: {
    type: 'object',
    properties: { n: { type: 'integer' } },
    required: ['n'],
    additionalProperties: false,
  },
}
const MESSAGES = [
  { role: 'system' as const, content: 'Answer with {"n": <integer>}.' },
  { role: 'user' as const, content: 'Two plus two?' },
]

describe('chat model over an OpenAI-compatible chat-completions endpoint', () => {
  let server: ChatCompletionsServer
  let config: AiConfig
  beforeAll(async () => {
    server = await startChatCompletionsServer()
  })
  afterAll(async () => {
    await server?.stop()
  })
  beforeEach(() => {
    server.requests.length = 0
    config = { url: server.url, apiKey: 'sk-test-key', model: 'test-model-1', timeoutMs: 2_000, responseFormat: 'json_schema' }
  })
  const failure = async (promise: Promise<unknown>): Promise<WrenError> => {
    const err = await promise.then(
      () => null,
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(WrenError)
    return err as WrenError
  }

  it('posts the model, the messages, the key and a JSON-schema response format, and returns the checked answer', async () => {
    server.reply({ content: '{"n": 4}' })
    expect(await askForJson(chatModel(config), MESSAGES, SHAPE)).toEqual({ value: { n: 4 } })
    expect(server.requests).toHaveLength(1)
    const [request] = server.requests
    expect(request.method).toBe('POST')
    expect(request.path).toBe('/v1/chat/completions')
    expect(request.headers.authorization).toBe('Bearer sk-test-key')
    expect(request.headers['content-type']).toBe('application/json')
    expect(request.body).toEqual({
      model: 'test-model-1',
      messages: MESSAGES,
      response_format: { type: 'json_schema', json_schema: { name: 'answer', strict: true, schema: SHAPE.schema } },
    })
  })

  it('asks for any JSON object, or for nothing, as WREN_AI_RESPONSE_FORMAT says; sends no key when none is set', async () => {
    server.reply({ content: '```json\n{"n": 4}\n```' }, { content: '{"n": 5}' })
    expect(await askForJson(chatModel({ ...config, responseFormat: 'json_object', apiKey: null }), MESSAGES, SHAPE)).toEqual({
      value: { n: 4 },
    })
    expect(await askForJson(chatModel({ ...config, responseFormat: 'none' }), MESSAGES, SHAPE)).toEqual({ value: { n: 5 } })
    expect(server.requests[0].body.response_format).toEqual({ type: 'json_object' })
    expect(server.requests[0].headers.authorization).toBeUndefined()
    expect(server.requests[1].body).not.toHaveProperty('response_format')
  })

  it('asks once more after an answer that does not fit, telling the model what was wrong', async () => {
    server.reply({ content: '{"n": "four"}' }, { content: '{"n": 4}' })
    expect(await askForJson(chatModel(config), MESSAGES, SHAPE)).toEqual({ value: { n: 4 } })
    expect(server.requests).toHaveLength(2)
    const retry = server.requests[1].body.messages
    expect(retry.slice(0, 2)).toEqual(MESSAGES)
    expect(retry[2]).toEqual({ role: 'assistant', content: '{"n": "four"}' })
    expect(retry[3].role).toBe('user')
    expect(retry[3].content).toContain('/n must be integer')
  })

  it('applies the caller’s own check as well as the schema', async () => {
    server.reply({ content: '{"n": 5}' }, { content: '{"n": 4}' })
    const even = (v: { n: number }) => (v.n % 2 === 0 ? null : 'n must be even.')
    expect(await askForJson(chatModel(config), MESSAGES, SHAPE, even)).toEqual({ value: { n: 4 } })
    expect(server.requests[1].body.messages[3].content).toContain('n must be even.')
  })

  it('asks the same question again after a refusal, and reports a second refusal', async () => {
    server.reply({ refusal: 'I cannot help with that.' }, { content: '{"n": 4}' })
    expect(await askForJson(chatModel(config), MESSAGES, SHAPE)).toEqual({ value: { n: 4 } })
    expect(server.requests[1].body.messages).toEqual(MESSAGES)
    server.reply({ refusal: 'No.' }, { refusal: 'Still no.' })
    expect(await askForJson(chatModel(config), MESSAGES, SHAPE)).toEqual({ refusal: 'Still no.' })
    expect(server.requests).toHaveLength(4)
  })

  it('answers ai_invalid_response (502) after two answers that are not JSON of the shape', async () => {
    server.reply({ content: 'four' }, { content: '{"n": 4, "extra": true}' })
    const err = await failure(askForJson(chatModel(config), MESSAGES, SHAPE))
    expect(err.status).toBe(502)
    expect(err.code).toBe('ai_invalid_response')
    expect(err.message).toMatch(/must NOT have additional properties/)
  })

  it('answers ai_provider_error (502) quoting the provider, without retrying, when the provider fails', async () => {
    server.reply({ status: 500, body: JSON.stringify({ error: { message: 'model overloaded' } }) })
    const err = await failure(askForJson(chatModel(config), MESSAGES, SHAPE))
    expect(err.toJSON()).toMatchObject({ type: 'server_error', code: 'ai_provider_error' })
    expect(err.status).toBe(502)
    expect(err.message).toContain('answered 500: model overloaded')
    expect(err.message).not.toContain('sk-test-key')
    expect(server.requests).toHaveLength(1)
    server.reply({ status: 200, body: '{"object": "list"}' })
    expect((await failure(askForJson(chatModel(config), MESSAGES, SHAPE))).message).toContain('not a chat completion')
  })

  it('answers ai_provider_timeout (504) when the provider is slower than WREN_AI_TIMEOUT_MS', async () => {
    server.reply({ delayMs: 5_000, content: '{"n": 4}' })
    const err = await failure(askForJson(chatModel({ ...config, timeoutMs: 200 }), MESSAGES, SHAPE))
    expect(err.status).toBe(504)
    expect(err.code).toBe('ai_provider_timeout')
    expect(err.message).toContain('WREN_AI_TIMEOUT_MS')
  })

  it('answers ai_provider_error (502) when the provider cannot be reached', async () => {
    const gone = await startChatCompletionsServer()
    await gone.stop()
    const err = await failure(askForJson(chatModel({ ...config, url: gone.url }), MESSAGES, SHAPE))
    expect(err.status).toBe(502)
    expect(err.message).toContain('could not be reached')
  })

  it('answers ai_not_configured (501) naming each missing setting, and calls nothing', async () => {
    const none = await failure(chatModel({ ...config, url: null, model: null }).complete(MESSAGES, SHAPE))
    expect(none.status).toBe(501)
    expect(none.code).toBe('ai_not_configured')
    expect(none.message).toMatch(/WREN_AI_URL and WREN_AI_MODEL/)
    const noModel = await failure(chatModel({ ...config, model: null }).complete(MESSAGES, SHAPE))
    expect(noModel.message).toContain('set WREN_AI_MODEL')
    expect(noModel.message).not.toContain('WREN_AI_URL')
    expect(server.requests).toHaveLength(0)
  })
})
