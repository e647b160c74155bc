// CORS for the two kinds of routes.
import type { FastifyCorsOptions } from '@fastify/cors'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Per-route @fastify/cors options (the plugin reads them; its own types do not declare them). */
    cors?: Partial<FastifyCorsOptions> | false
  }
}
