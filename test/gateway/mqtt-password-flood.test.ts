import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PASSWORD_CHECKS_RUNNING, PASSWORD_CHECKS_WAITING } from '../../src/auth/passwords.js';
import { startEmulator } from '../../src/index.js';
import { api } from '../helpers/emulator.js';
import { connectAnswer } from '../helpers/mqtt-connect.js';

const SERVER_UNAVAILABLE = 3;
const BAD_USERNAME_OR_PASSWORD = 4;
const FLOOD = 200;

/** CONNECT with these credentials: `ok`, or the CONNACK return code of the refusal (the flood takes a while). */
const connect = (url: string, username: string, password: string) => connectAnswer(url, { username, password }, 30_000);

describe('a flood of MQTT CONNECTs with wrong passwords', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-emu-password-flood-'));
  const emulator = await startEmulator({ port: 0, mqttPort: 0, dataDir, log: () => undefined });
  afterAll(async () => {
    await emulator.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const call = api(emulator);

  it(
    `runs at most ${PASSWORD_CHECKS_RUNNING} checks with ${PASSWORD_CHECKS_WAITING} waiting, refuses the rest ` +
      `as "server unavailable", and durable writes go on`,
    async () => {
      const created = await call('POST', '/ccm/api/v1/basic-credentials', {
        body: { username: 'flooded', password: 'right-password' },
      });
      expect(created.status).toBe(201);
      const attempts = Array.from({ length: FLOOD }, (_, i) =>
        connect(emulator.mqttUrl, i % 2 === 0 ? 'flooded' : `nobody-${i}`, 'wrong-password'),
      );
      // A durable write made while every check slot is taken still answers (the thread pool keeps threads for the
      // disk).
      const written = await call('POST', '/epr/api/v1/endpoints', {
        body: { endpointId: 'during-flood', appVersion: { name: 'smart-meter-v1' } },
      });
      expect(written.status).toBe(201);
      const outcomes = await Promise.all(attempts);
      expect(outcomes.filter((o) => o !== SERVER_UNAVAILABLE && o !== BAD_USERNAME_OR_PASSWORD)).toEqual([]);
      expect(outcomes.filter((o) => o === SERVER_UNAVAILABLE).length).toBeGreaterThan(0);
      // Once the flood is over, the right password gets in again.
      expect(await connect(emulator.mqttUrl, 'flooded', 'right-password')).toBe('ok');
    },
  );
});
