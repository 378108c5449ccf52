// node phases.mjs <dist> : main-thread CPU ms at each step of importing and starting
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os'; import { join } from 'node:path';
const cpu = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
const dist = process.argv[2];
const steps = process.argv.slice(3);
const out = [['boot', cpu()]];
for (const s of steps) {
  if (s === 'start') {
    const { startEmulator } = await import(dist + '/emulator.js');
    const e = await startEmulator({ port: 0, mqttPort: 0, mqttsPort: 0, dataDir: join(mkdtempSync(join(tmpdir(), 'ph-')), 'd'), log: () => {} });
    out.push([s, cpu()]);
    await e.stop();
    continue;
  }
  await import(s.startsWith('.') ? dist + s.slice(1) : s);
  out.push([s, cpu()]);
}
let prev = 0; console.log(out.map(([k, v]) => { const d = v - prev; prev = v; return `${k}=${d.toFixed(0)}`; }).join(' '));
process.exit(0);
