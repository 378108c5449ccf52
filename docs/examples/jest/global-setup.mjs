import { startEmulator } from 'platform-emu';

// One emulator for the whole run, in Jest's main process: the test files (in their workers) get its URL
// and tokens through the environment.
export default async function globalSetup() {
  const emulator = await startEmulator({ port: 0, mqttPort: 0, inMemory: true, auth: 'on', log: () => {} });
  await emulator.snapshot('clean');
  process.env.EMULATOR_URL = emulator.url;
  process.env.EMULATOR_ADMIN_TOKEN = emulator.adminToken;
  process.env.EMULATOR_ACCESS_TOKEN = emulator.token({ ttlSeconds: 24 * 3600 });
  // Only the global teardown sees this.
  globalThis.platformEmulator = emulator;
}
