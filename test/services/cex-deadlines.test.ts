import { internalContext } from '../../src/emulator.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startEmulator } from '../../src/index.js';
import { applyDeadlines, COMMANDS } from '../../src/services/cex/commands.js';
import { DeadlineQueue } from '../../src/services/cex/deadlines.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { sleep } from '../gateway/device.js';

describe('the deadline queue', () => {
  it('hands over due ids in time order, on one timer', async () => {
    const due: number[][] = [];
    const queue = new DeadlineQueue((ids) => void due.push(ids));
    const now = Date.now();
    queue.add(now + 60, 3);
    queue.add(now + 20, 1);
    queue.add(now + 40, 2);
    queue.add(now + 10 * 365 * 24 * 3_600_000, 4);
    await sleep(150);
    expect(due.flat()).toEqual([1, 2, 3]);
    expect(queue.size).toBe(1);
    queue.stop();
  });
});

describe('retention', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('deletes a command once its commandRetentionTtl has passed, whatever its status', async () => {
    const response = await call(
      'POST',
      '/cex/api/v1/endpoints/meter-001/commands/reboot?waitTimeout=0&commandRetentionTtl=1',
      { body: {} },
    );
    const id = response.body.commandId;
    await applyDeadlines(internalContext(emulator), [id]);
    expect(COMMANDS.get(internalContext(emulator), String(id))).toBeDefined();
    const later = Date.now() + 3_600_000 + 1000;
    vi.spyOn(Date, 'now').mockReturnValue(later);
    try {
      await applyDeadlines(internalContext(emulator), [id]);
    } finally {
      vi.restoreAllMocks();
    }
    expect(COMMANDS.get(internalContext(emulator), String(id))).toBeUndefined();
    expect((await call('GET', `/cex/api/v1/endpoints/meter-001/commands/reboot/${id}`)).status).toBe(404);
  });
});

describe('deadlines across a restart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-emu-cex-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('expires, on start, a command whose TTL passed while the emulator was stopped; ids keep counting', async () => {
    const options = { port: 0, mqttPort: 0, dataDir: dir, log: () => undefined };
    let emulator = await startEmulator(options);
    const first = await api(emulator)(
      'POST',
      '/cex/api/v1/endpoints/meter-001/commands/reboot?awaitTimeout=0&commandTtl=200',
      { body: {} },
    );
    await emulator.stop();
    await sleep(300);
    emulator = await startEmulator(options);
    try {
      await sleep(50);
      expect((COMMANDS.get(internalContext(emulator), String(first.body.commandId)) as { status: string }).status).toBe(
        'EXPIRED',
      );
      const second = await api(emulator)('POST', '/cex/api/v1/endpoints/meter-001/commands/reboot?waitTimeout=0', {
        body: {},
      });
      expect(second.body.commandId).toBeGreaterThan(first.body.commandId);
    } finally {
      await emulator.stop();
    }
  });
});
