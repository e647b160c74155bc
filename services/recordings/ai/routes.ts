// POST /api/projects/:project_id/session_recordings/ai/filters/ and …/ai/regex/: the AI helpers of the
// recordings list (reference §4.6), with PostHog's request and answer shapes, answered by the chat model
// Wren is configured with (platform/ai/chat.ts). Without one they answer 501 ai_not_configured; a provider
// that fails or is slow answers 502/504; nothing is ever answered that the model did not say.
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { Tenants } from '../../platform/tenancy'
import { askForJson, type ChatModel } from '../../platform/ai/chat'
import type { Clock } from '../../platform/clock'
import { wrenError } from '../../platform/errors'
import { routesOf } from '../../platform/http/route'
import { ErrorBody } from '../../platform/http/schemas'
import { AI_FILTER_SHAPE, checkFilterAnswer, filterPrompt, type AiFilterAnswer } from './filters'
import { AI_REGEX_SHAPE, checkRegexAnswer, regexPrompt, type AiRegexAnswer } from './regex'

/** Longest description or chat message taken (as other free text in the API). */
const MAX_TEXT = 10_000
const MAX_MESSAGES = 50

const SCOPE_NOTE =
  'PostHog serves this action to logged-in users only (personal API keys are refused there); Wren, whose management API takes personal API keys, asks for `session_recording:read`, the scope of the list it helps to filter.'
const ProviderErrors = {
  501: ErrorBody,
  502: ErrorBody,
  504: ErrorBody,
}

export async function aiRoutes(app: FastifyInstance, deps: { projects: Tenants; model: ChatModel; clock: Clock }): Promise<void> {
  const route = routesOf(app, { projects: deps.projects, tag: 'session recordings' })

  route({
    method: 'POST',
    url: '/session_recordings/ai/regex/',
    summary: 'A regular expression from a plain-language description (AI)',
    description: `Asks the configured chat model (WREN_AI_URL, WREN_AI_MODEL) for a pattern. \`engine: "re2"\` asks for RE2's subset (no lookaround or backreferences), which Wren's regex filters use. Answers \`{result: "success", data: {output: <pattern>}}\`, or \`{result: "error", data: {output: <why not>}}\` when the model says no pattern fits or declines twice. 501 \`ai_not_configured\` without a model; 502 \`ai_provider_error\` or \`ai_invalid_response\`, 504 \`ai_provider_timeout\` when the provider fails. ${SCOPE_NOTE}`,
    access: { project: 'session_recording:read' },
    schema: {
      body: Type.Object({
        regex: Type.String({ minLength: 1, maxLength: MAX_TEXT, description: 'What the pattern should match, in plain words.' }),
        engine: Type.Optional(Type.String({ maxLength: 20, description: '"re2" for RE2’s subset; absent for common engines.' })),
      }),
      response: {
        200: Type.Object({
          result: Type.Enum(['success', 'error']),
          data: Type.Object({ output: Type.String({ description: 'The pattern, or why none was written.' }) }),
        }),
        ...ProviderErrors,
      },
    },
    handler: async (request) => {
      const { regex, engine } = request.body
      const answer = await askForJson<AiRegexAnswer>(deps.model, regexPrompt(regex, engine), AI_REGEX_SHAPE, checkRegexAnswer(engine))
      if ('refusal' in answer) return { result: 'error' as const, data: { output: `The model declined: ${answer.refusal}` } }
      return answer.value
    },
  })

  route({
    method: 'POST',
    url: '/session_recordings/ai/filters/',
    summary: 'Recording filters from a conversation (AI)',
    description: `Asks the configured chat model to turn the conversation (\`messages\`, oldest first) into recording filters: \`{result: "filter", data: {question: "", date_from, date_to, filter_group}}\`, or a question back when the request is unclear: \`{result: "question", data: {question, …}}\` (send it on as an assistant message with the user's reply). 422 \`ai_refused\` when the model declines twice; 501 \`ai_not_configured\` without a model; 502 \`ai_provider_error\` or \`ai_invalid_response\`, 504 \`ai_provider_timeout\` when the provider fails. ${SCOPE_NOTE}`,
    access: { project: 'session_recording:read' },
    schema: {
      body: Type.Object({
        messages: Type.Array(
          Type.Object({
            role: Type.Enum(['user', 'assistant']),
            content: Type.String({ maxLength: MAX_TEXT }),
          }),
          { minItems: 1, maxItems: MAX_MESSAGES, description: 'The conversation so far, oldest first; the last is the user’s.' },
        ),
      }),
      response: {
        200: Type.Unsafe<AiFilterAnswer>({ ...AI_FILTER_SHAPE.schema, title: 'AI recording filters' }),
        422: ErrorBody,
        ...ProviderErrors,
      },
    },
    handler: async (request) => {
      const prompt = filterPrompt(request.body.messages, deps.clock.now())
      const answer = await askForJson<AiFilterAnswer>(deps.model, prompt, AI_FILTER_SHAPE, checkFilterAnswer)
      if ('refusal' in answer) throw wrenError('ai_refused', `The AI model declined to answer, twice: ${answer.refusal}`)
      return answer.value
    },
  })
}
