import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Files run in parallel; every test starts its own emulators on port 0 with their own state.
    fileParallelism: true,
  },
});
