import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cli, startProcess, type EmulatorProcess } from '../store/emulator-process.js';

const preflight = (url: string, origin: string) =>
  fetch(`${url}/epr/api/v1/endpoints`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  });

describe('platform-emu start --allow-origin', () => {
  beforeAll(assertBuilt);
  const running: EmulatorProcess[] = [];
  afterAll(() => Promise.all(running.map((e) => e.stop())));

  it('takes a comma-separated PLATFORM_EMU_ALLOW_ORIGIN; other origins stay refused', async () => {
    const emulator = await startProcess(['--port', '0', '--in-memory', '--quiet'], {
      PLATFORM_EMU_ALLOW_ORIGIN: 'https://a.example.test, https://b.example.test:8443',
    });
    running.push(emulator);
    for (const origin of ['https://a.example.test', 'https://b.example.test:8443']) {
      const answer = await preflight(emulator.url, origin);
      expect(answer.status, origin).toBe(204);
      expect(answer.headers.get('access-control-allow-origin')).toBe(origin);
    }
    expect((await preflight(emulator.url, 'https://d.example.test')).status).toBe(403);
  });

  it('takes the flag repeatedly, and refuses a value that is not an origin, naming it', async () => {
    const result = await cli([
      'start',
      '--port',
      '0',
      '--mqtt-port',
      '0',
      '--in-memory',
      '--allow-origin',
      'https://ok.example.test',
      '--allow-origin',
      'https://a.test/app',
    ]);
    expect(result.exitCode).not.toBe(0);
    expect(String(result.stderr)).toMatch(/"https:\/\/a\.test\/app" is not an origin; give scheme, host and port only/);
  });
});
