import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // An emulator and a device start in well under a second, but on a busy CI machine a hook can take longer than
    // Vitest's 10 s default. Each project takes it (`extends: true`).
    hookTimeout: 30_000,
    projects: [
      // Each test file starts its own emulator.
      { extends: true, test: { name: 'per-file', include: ['per-file.test.ts'] } },
      // One emulator for all files, started by the global setup.
      { extends: true, test: { name: 'shared', include: ['shared.test.ts'], globalSetup: ['./global-setup.ts'] } },
    ],
  },
});
