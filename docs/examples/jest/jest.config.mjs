// The package is ESM: run Jest with NODE_OPTIONS=--experimental-vm-modules, and without transforms.
const common = { testEnvironment: 'node', transform: {} };

export default {
  // An emulator and a device start in well under a second, but on a busy CI machine a hook can take longer than
  // Jest's 5 s default.
  testTimeout: 30_000,
  projects: [
    // Each test file starts its own emulator.
    { ...common, displayName: 'per-file', testMatch: ['<rootDir>/per-file.test.mjs'] },
    // One emulator for all files, started by the global setup.
    {
      ...common,
      displayName: 'shared',
      testMatch: ['<rootDir>/shared.test.mjs'],
      globalSetup: '<rootDir>/global-setup.mjs',
      globalTeardown: '<rootDir>/global-teardown.mjs',
    },
  ],
};
