import { defineConfig } from 'vitest/config'

// chDB allows one engine per process, so every test file runs in its own forked process.
export default defineConfig({
  test: {
    include: ['services/**/*.test.ts', 'test/**/*.test.ts', 'web/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Every Wren a test starts, in its process or as a child, checks its answers against their schemas.
    env: { WREN_CHECK_RESPONSES: '1' },
  },
})
