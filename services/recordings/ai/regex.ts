// ai/regex: a regular expression from a plain-language description. The answer's shape is PostHog's
// (reference §4.6, AiRegexSchema): {result: "success" | "error", data: {output}}, the regex itself or why
// none can be written. The prompt is Wren's; engine "re2" (ClickHouse's, which Wren's regex filters run
// on) rules out lookaround and backreferences, which RE2 does not have.
import type { ChatMessage, JsonShape } from '../../platform/ai/chat'

export interface AiRegexAnswer {
  result: 'success' | 'error'
  data: { output: string }
}

export const AI_REGEX_SHAPE: JsonShape = {
  name: 'regex_answer',
  schema: {
    type: 'object',
    properties: {
      result: { type: 'string', enum: ['success', 'error'] },
      data: {
        type: 'object',
        properties: { output: { type: 'string' } },
        required: ['output'],
        additionalProperties: false,
      },
    },
    required: ['result', 'data'],
    additionalProperties: false,
  },
}

/** Constructs RE2 lacks: lookahead, lookbehind, backreferences (numbered or named). */
const NOT_RE2 = /\(\?<?[=!]|\\k<|(?<!\\)\\[1-9]/

/** A successful answer must hold a pattern that compiles (in RE2's subset for engine re2). */
export function checkRegexAnswer(engine: string | undefined): (answer: AiRegexAnswer) => string | null {
  return (answer) => {
    if (answer.result !== 'success') return answer.data.output.trim() === '' ? 'result is "error" but data.output does not say why.' : null
    const pattern = answer.data.output
    if (pattern === '') return 'result is "success" but data.output is empty.'
    if (engine === 're2') {
      if (NOT_RE2.test(pattern)) return 'the pattern uses lookaround or a backreference, which RE2 does not support.'
      return null
    }
    try {
      new RegExp(pattern)
    } catch (err) {
      return `the pattern does not compile: ${(err as Error).message}.`
    }
    return null
  }
}

export function regexPrompt(description: string, engine: string | undefined): ChatMessage[] {
  const dialect =
    engine === 're2'
      ? 'The pattern runs on RE2 (as in ClickHouse and Go): no lookahead, no lookbehind, no backreferences. Inline flags such as (?i) are allowed.'
      : 'Write a pattern that works in common engines (JavaScript, PCRE, Python).'
  const system = `You write regular expressions. The user describes, in plain words, which strings should match (often URLs, page paths, event names or console messages). ${dialect}

Answer with one JSON object: {"result": "success" | "error", "data": {"output": string}}.
- When a regular expression can express the description: result "success", and data.output is the pattern alone, with no slashes around it, no flags after it and no explanation.
- When it cannot, or the description is not about matching text: result "error", and data.output says briefly why, in the user's language.
Match the whole described value only when the user asks for an exact match; otherwise match anywhere in the string.`
  return [
    { role: 'system', content: system },
    { role: 'user', content: description },
  ]
}
