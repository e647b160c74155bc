// A chat model behind one small interface, and the one provider Wren speaks: any OpenAI-compatible
// chat-completions endpoint (`POST {WREN_AI_URL}/chat/completions`: OpenAI, Azure's compatible API, vLLM,
// Ollama, LiteLLM, …), configured by WREN_AI_URL, WREN_AI_API_KEY and WREN_AI_MODEL. `askForJson` asks for
// an answer of a JSON schema's shape, checks it, and asks once more when the model refuses or the answer
// does not fit (as PostHog retries once on a refusal); it never makes an answer up.
import { Ajv, type ValidateFunction } from 'ajv'
import type { AiConfig } from '../config'
import { wrenError } from '../errors'

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant'
  content: string
}

/** The shape an answer must have: a name (the provider's `json_schema.name`) and a JSON schema. */
export interface JsonShape {
  name: string
  schema: Record<string, unknown>
}

/** One completion: what the model said, or its refusal (structured outputs report refusals apart). */
export interface ChatAnswer {
  content: string | null
  refusal: string | null
}

export interface ChatModel {
  /** One completion. Throws ai_not_configured, ai_provider_error (502) or ai_provider_timeout (504). */
  complete(messages: ChatMessage[], shape: JsonShape): Promise<ChatAnswer>
}

/** The model the configuration names, or one that answers every call with ai_not_configured naming what is missing. */
export function chatModel(config: AiConfig): ChatModel {
  const missing = [config.url ? null : 'WREN_AI_URL', config.model ? null : 'WREN_AI_MODEL'].filter((s) => s !== null)
  if (missing.length)
    return {
      complete: async () => {
        throw wrenError(
          'ai_not_configured',
          `No AI model is configured: set ${missing.join(' and ')} (an OpenAI-compatible chat-completions API${missing.includes('WREN_AI_URL') ? ', e.g. https://api.openai.com/v1' : ''}; WREN_AI_API_KEY if it needs a key).`,
        )
      },
    }
  return new OpenAiCompatibleModel({ ...config, url: config.url!, model: config.model! })
}

/** Most characters of a provider's error body quoted back in the 502's detail. */
const ERROR_QUOTE_CHARS = 300

export class OpenAiCompatibleModel implements ChatModel {
  constructor(private readonly config: AiConfig & { url: string; model: string }) {}

  async complete(messages: ChatMessage[], shape: JsonShape): Promise<ChatAnswer> {
    const { url, apiKey, model, timeoutMs, responseFormat } = this.config
    const endpoint = `${url}/chat/completions`
    const body = {
      model,
      messages,
      ...(responseFormat === 'json_schema'
        ? { response_format: { type: 'json_schema', json_schema: { name: shape.name, strict: true, schema: shape.schema } } }
        : responseFormat === 'json_object'
          ? { response_format: { type: 'json_object' } }
          : {}),
    }
    let response: Response
    let text: string
    try {
      // One deadline for the whole exchange: connecting, the model's thinking, and reading the body.
      const signal = AbortSignal.timeout(timeoutMs)
      response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body: JSON.stringify(body),
        signal,
      })
      text = await response.text()
    } catch (err) {
      const name = (err as Error).name
      if (name === 'TimeoutError' || name === 'AbortError')
        throw wrenError('ai_provider_timeout', `The AI provider at ${endpoint} did not answer within ${timeoutMs} ms (WREN_AI_TIMEOUT_MS).`)
      const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message
      throw wrenError('ai_provider_error', `The AI provider at ${endpoint} could not be reached: ${cause}`)
    }
    if (!response.ok)
      throw wrenError(
        'ai_provider_error',
        `The AI provider at ${endpoint} answered ${response.status}: ${providerMessage(text).slice(0, ERROR_QUOTE_CHARS)}`,
      )
    const message = completionMessage(text)
    if (!message) throw wrenError('ai_provider_error', `The AI provider at ${endpoint} answered something that is not a chat completion.`)
    return message
  }
}

/** `choices[0].message` of a chat completion, or null when the body is not one. */
function completionMessage(text: string): ChatAnswer | null {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return null
  }
  const choices = (parsed as { choices?: unknown })?.choices
  if (!Array.isArray(choices)) return null
  const message = (choices[0] as { message?: { content?: unknown; refusal?: unknown } } | undefined)?.message
  if (typeof message !== 'object' || message === null) return null
  return {
    content: typeof message.content === 'string' ? message.content : null,
    refusal: typeof message.refusal === 'string' && message.refusal !== '' ? message.refusal : null,
  }
}

/** The provider's own words from an error body (`{error: {message}}` in OpenAI's form), else the body. */
function providerMessage(text: string): string {
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } })?.error?.message
    if (typeof message === 'string') return message
  } catch {
    // not JSON: quote it as sent
  }
  return text.trim() || '(empty body)'
}

const ajv = new Ajv({ allErrors: false, strict: false })
const validators = new WeakMap<JsonShape, ValidateFunction>()

function validatorOf(shape: JsonShape): ValidateFunction {
  let validate = validators.get(shape)
  if (!validate) validators.set(shape, (validate = ajv.compile(shape.schema)))
  return validate
}

/** What is wrong with an answer beyond its schema (a regex that does not compile, …), or null. */
export type AnswerCheck<T> = (value: T) => string | null

/**
 * Asks `model` for an answer of `shape`, checked against its JSON schema and `check`. A refusal, or an
 * answer that is not JSON of the shape, is asked once more (after an answer that does not fit, the model
 * is told what was wrong with it). After a second refusal: `{refusal}`; after a second answer that does not
 * fit: ai_invalid_response (502). Provider errors and timeouts are thrown as they come (not retried).
 */
export async function askForJson<T>(
  model: ChatModel,
  messages: ChatMessage[],
  shape: JsonShape,
  check: AnswerCheck<T> = () => null,
): Promise<{ value: T } | { refusal: string }> {
  const validate = validatorOf(shape)
  let conversation = messages
  let outcome: { refusal: string } | { problem: string } = { problem: '' }
  for (let attempt = 0; attempt < 2; attempt++) {
    const answer = await model.complete(conversation, shape)
    if (answer.refusal !== null) {
      outcome = { refusal: answer.refusal }
      conversation = messages
      continue
    }
    const content = answer.content ?? ''
    const judged = judge(content, validate, check)
    if (judged.ok) return { value: judged.value }
    outcome = { problem: judged.problem }
    conversation = [
      ...messages,
      { role: 'assistant', content },
      {
        role: 'user',
        content: `That answer cannot be used: ${judged.problem} Answer again with one JSON object of the required shape and nothing else.`,
      },
    ]
  }
  if ('refusal' in outcome) return outcome
  throw wrenError('ai_invalid_response', `The AI model’s answer was not usable, twice: ${outcome.problem}`)
}

type Judged<T> = { ok: true; value: T } | { ok: false; problem: string }

function judge<T>(content: string, validate: ValidateFunction, check: AnswerCheck<T>): Judged<T> {
  if (content.trim() === '') return { ok: false, problem: 'it was empty.' }
  let value: unknown
  try {
    value = JSON.parse(stripFence(content))
  } catch {
    return { ok: false, problem: 'it was not valid JSON.' }
  }
  if (!validate(value)) {
    const error = validate.errors?.[0]
    return {
      ok: false,
      problem: `it does not match the schema: ${error?.instancePath || '(the answer)'} ${error?.message ?? 'is not valid'}.`,
    }
  }
  const wrong = check(value as T)
  return wrong === null ? { ok: true, value: value as T } : { ok: false, problem: wrong }
}

/** Models asked for JSON without a schema sometimes wrap it in a Markdown code fence. */
function stripFence(content: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/i.exec(content)
  return fenced ? fenced[1] : content
}
