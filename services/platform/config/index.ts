// Configuration comes from environment variables, read here and nowhere else: each variable is a row of
// ./table.ts (failpoints, for tests, are ./failpoints.ts), checked at start, where a bad value stops Wren.
export * from './types'
export { loadConfig } from './load'
export { printConfig } from './show'
export { usageVariables } from './render'
export { batchBytes, type BatchBytes } from './memory'
