import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      // Each test file starts its own emulator.
      { test: { name: 'per-file', include: ['per-file.test.ts'] } },
      // One emulator for all files, started by the global setup.
      { test: { name: 'shared', include: ['shared.test.ts'], globalSetup: ['./global-setup.ts'] } },
    ],
  },
});
