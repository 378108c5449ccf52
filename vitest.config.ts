import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Files run in parallel; every test starts its own emulators on port 0 with their own state. Much of a file's
    // time is spent waiting (child processes, devices, fsync), so three workers on this 2-core machine, not
    // vitest's default of one worker per core less one (which is one here).
    fileParallelism: true,
    maxWorkers: 3,
    // Stored values frozen at every level, not only the top: code that changes a stored record in place fails here.
    env: { PLATFORM_EMU_DEEP_FREEZE: '1' },
  },
});
