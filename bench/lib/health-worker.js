// The fleet figures' health probe, in a thread of its own: `GET /_emu/health` one at a time, as often as `everyMs`
// allows, each answer's time. The bench's main thread reads the simulator's lines (ten thousand a second at the
// fleet of 10,000) and could add its own waits to the times it takes (docs/performance.md, round eighteen).
// workerData: { url, everyMs }. Told 'stop', it posts the times (Infinity for a failed request) and ends.
import { parentPort, workerData } from 'node:worker_threads';
import { httpJson } from './http.js';

const { url, everyMs } = workerData;
const times = [];
let asking;
let stopped = false;

const ask = () => {
  if (asking || stopped) return;
  const started = performance.now();
  asking = httpJson(`${url}/_emu/health`)
    .then(() => times.push(performance.now() - started))
    .catch(() => times.push(Infinity))
    .finally(() => (asking = undefined));
};
const timer = setInterval(ask, everyMs);
ask();

parentPort.once('message', async () => {
  stopped = true;
  clearInterval(timer);
  await asking;
  parentPort.postMessage(times);
  parentPort.close();
});
