import type { TestProject } from 'vitest/node';
import { startEmulator, type RunningEmulator } from 'platform-emu';

let emulator: RunningEmulator;

// One emulator for the whole run: its URL reaches the test files through `inject('emulatorUrl')`.
export async function setup(project: TestProject) {
  emulator = await startEmulator({ port: 0, mqttPort: 0, inMemory: true, auth: 'on', log: () => {} });
  await emulator.snapshot('clean');
  project.provide('emulatorUrl', emulator.url);
  project.provide('adminToken', emulator.adminToken);
  project.provide('accessToken', emulator.token({ ttlSeconds: 24 * 3600 }));
}

export async function teardown() {
  await emulator.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    emulatorUrl: string;
    adminToken: string;
    accessToken: string;
  }
}
