// Figure 10: CLI latency. `platform-emu token` and `platform-emu call GET ...` against a running emulator, from
// spawn to exit, against `node -e ''` (the floor of any Node CLI), interleaved; medians.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { measure } from '../lib/report.js';
import { median } from '../lib/stats.js';

const BIN = fileURLToPath(new URL('../../bin/platform-emu.js', import.meta.url));

/** Spawn to exit of `node args`; rejects unless it exits 0 with `expect` in its output. */
function timedRun(args, expect) {
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      const ms = performance.now() - started;
      if (code !== 0 || !expect.test(out))
        reject(new Error(`node ${args.slice(1).join(' ')} exited ${code}: ${out.slice(0, 500)}`));
      else resolve(ms);
    });
  });
}

export default {
  name: 'cli',
  async run(bench) {
    return bench.using(
      () => bench.startEmulator(),
      async (emulator) => {
        const runs = {
          floor: () => timedRun(['-e', ''], /^/),
          token: () => timedRun([BIN, 'token', '--url', emulator.url], /^ey[\w-]+\.[\w-]+\.[\w-]+\s*$/),
          call: () =>
            timedRun(
              [BIN, 'call', 'GET', '/epr/api/v1/endpoints/meter-001', '--url', emulator.url],
              /"endpointId": ?"meter-001"/,
            ),
        };
        const times = { floor: [], token: [], call: [] };
        // One untimed run each: the first spawn of a script pays for reading it from disk.
        for (const run of Object.values(runs)) await run();
        for (let i = 0; i < bench.profile.cliRuns; i++)
          for (const [key, run] of Object.entries(runs)) times[key].push(await run());
        const floor = { reference: median(times.floor), referenceName: "node -e ''" };
        const note = (key) =>
          `spawn to exit, median of ${times[key].length}: ${times[key].map((t) => Math.round(t)).join(', ')} ms`;
        return [
          measure({
            id: '10a',
            name: 'platform-emu token, emulator running',
            unit: 'ms',
            value: median(times.token),
            ...floor,
            rounds: times.token,
            referenceRounds: times.floor,
            target: { on: 'ratio', op: '<', limit: 2 },
            note: note('token'),
          }),
          measure({
            id: '10b',
            name: 'platform-emu call GET /epr/api/v1/endpoints/{id}',
            unit: 'ms',
            value: median(times.call),
            ...floor,
            rounds: times.call,
            referenceRounds: times.floor,
            target: { on: 'ratio', op: '<', limit: 2 },
            note: note('call'),
          }),
        ];
      },
    );
  },
};
