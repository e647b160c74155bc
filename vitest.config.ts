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
    // Its background threads keep the process's priority: a test's own client floods the Wren it started on
    // the same two cores, where ingestion behind capture (WREN_BACKGROUND_NICE's default) only waits longer
    // (the crash tests took 1.6x as long); services/shared/thread-priority.test.ts tests the priority itself.
    env: { WREN_CHECK_RESPONSES: '1', WREN_BACKGROUND_NICE: '0' },
  },
})
