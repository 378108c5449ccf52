import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/index.js';
import { api } from '../helpers/emulator.js';

const EXAMPLES = fileURLToPath(new URL('../../docs/examples/vitest/', import.meta.url));
const API_DOC = fileURLToPath(new URL('../../docs/api.md', import.meta.url));

describe('the in-process API for test suites', () => {
  it('starts several in-memory emulators at once in one process, each with its own ports and state', async () => {
    const emulators = await Promise.all(
      Array.from({ length: 4 }, () => startEmulator({ port: 0, mqttPort: 0, inMemory: true, log: () => undefined })),
    );
    try {
      expect(new Set(emulators.map((e) => e.port)).size).toBe(4);
      expect(new Set(emulators.map((e) => e.mqttPort)).size).toBe(4);
      await api(emulators[0])('POST', '/epr/api/v1/endpoints', {
        body: { appVersion: { name: 'tracker-v1' }, endpointId: 'only-in-0' },
      });
      await emulators[1].clock.set('2030-01-01T00:00:00Z');
      emulators[2].faults.add({ kind: 'http', path: '/epr', status: 500 });
      expect((await api(emulators[0])('GET', '/epr/api/v1/endpoints/only-in-0')).status).toBe(200);
      expect((await api(emulators[3])('GET', '/epr/api/v1/endpoints/only-in-0')).status).toBe(404);
      expect(emulators[3].clock.mode).toBe('real');
      expect(emulators[0].faults.list()).toEqual([]);
      expect(emulators[1].clock.now().toISOString()).toBe('2030-01-01T00:00:00.000Z');
    } finally {
      await Promise.all(emulators.map((e) => e.stop()));
    }
  });

  it(
    'the examples of docs/api.md are in it verbatim, and they pass (a per-file emulator, and one from a ' +
      'globalSetup)',
    async () => {
      const doc = readFileSync(API_DOC, 'utf8');
      for (const file of ['per-file.test.ts', 'global-setup.ts', 'shared.test.ts', 'vitest.config.ts']) {
        expect(doc, file).toContain(readFileSync(`${EXAMPLES}${file}`, 'utf8').trim());
      }
      // The examples import 'platform-emu': the package itself, built (npm test builds first).
      const env = Object.fromEntries(
        Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && !name.startsWith('PLATFORM_EMU_')),
      );
      const run = await execa('npx', ['vitest', 'run', '--root', EXAMPLES], {
        cwd: EXAMPLES,
        env: { ...env, NO_COLOR: '1' },
        extendEnv: false,
        reject: false,
      });
      expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toMatch(/Tests\s+6 passed/);
    },
    120_000,
  );
});
