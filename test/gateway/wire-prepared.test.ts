import { execa } from 'execa';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// `platform-emu start` starts the MQTT wire thread while the emulator's modules load, `startEmulator` before it opens
// the state (`prepareWireThread`, src/gateway/wire.ts), and the gateway takes that thread when it listens. Like the
// other wire thread tests, these run the build (`npm test` builds it first), each in a node process of its own: a
// thread is prepared once per process.
const WIRE = new URL('../../dist/gateway/wire.js', import.meta.url).href;
const INDEX = new URL('../../dist/index.js', import.meta.url).href;
if (!existsSync(fileURLToPath(WIRE))) throw new Error('Run `npm run build` before the wire thread tests.');

const dir = mkdtempSync(join(tmpdir(), 'platform-emu-wire-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let scripts = 0;

/** Runs an ES module in a node process of its own (a file: a worker inherits `--input-type`, which takes none). */
function runScript(script: string) {
  const file = join(dir, `script-${++scripts}.mjs`);
  writeFileSync(file, script);
  return execa(process.execPath, [file], { reject: false, timeout: 60_000 });
}

describe('a wire thread prepared ahead of the emulator', () => {
  it('keeps no process alive while it is not asked to listen (a start that fails before then exits)', async () => {
    const result = await runScript(`
      const { prepareWireThread } = await import(${JSON.stringify(WIRE)});
      prepareWireThread();
      console.log('prepared');
    `);
    expect(result.timedOut).toBe(false);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('prepared');
  });

  /**
   * A KP1 round trip on the emulator's plain MQTT port, after `prepareWireThread` called `prepares` times; prints the
   * reply's topic and the id of a worker made after it all. Worker ids count up from 1 in each process, and an
   * in-memory emulator starts no worker but its wire thread: that id tells how many threads the process started.
   */
  const roundTrip = (prepares: number) =>
    runScript(`
      const { Worker } = await import('node:worker_threads');
      const { default: mqtt } = await import(${JSON.stringify(import.meta.resolve('mqtt'))});
      const { prepareWireThread } = await import(${JSON.stringify(WIRE)});
      const { startEmulator } = await import(${JSON.stringify(INDEX)});
      for (let i = 0; i < ${prepares}; i++) prepareWireThread();
      const emulator = await startEmulator({ port: 0, mqttPort: 0, inMemory: true, log: () => undefined });
      const client = await mqtt.connectAsync(emulator.mqttUrl, { reconnectPeriod: 0 });
      const topic = 'kp1/smart-meter-v1/tsx/meter-001-token';
      await client.subscribeAsync(topic + '/1/status');
      const reply = new Promise((resolve) => client.once('message', (t) => resolve(t)));
      await client.publishAsync(topic + '/1', '{}');
      const probe = new Worker('', { eval: true });
      console.log(JSON.stringify({ reply: await reply, workerId: probe.threadId }));
      await probe.terminate();
      await client.endAsync();
      await emulator.stop();
    `);

  it('is the thread the next emulator listens in, and answers KP1 on its port', async () => {
    const [prepared, fresh] = await Promise.all([roundTrip(2), roundTrip(0)]);
    for (const result of [prepared, fresh]) {
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
    }
    const ran = (result: typeof prepared) => JSON.parse(result.stdout) as { reply: string; workerId: number };
    expect(ran(prepared).reply).toBe('kp1/smart-meter-v1/tsx/meter-001-token/1/status');
    expect(ran(fresh).reply).toBe(ran(prepared).reply);
    // As many threads as an emulator without one prepared: the prepared thread (one, though asked for twice) is the
    // one the emulator took, not one more beside a thread of its own.
    expect(ran(fresh).workerId).toBe(2);
    expect(ran(prepared).workerId).toBe(ran(fresh).workerId);
  });
});
