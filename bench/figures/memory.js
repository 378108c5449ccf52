// Figure 5: the emulator's resident memory at the large state, and after the read and write runs.
import { endpointCount } from '../lib/bench.js';
import { formatValue, measure } from '../lib/report.js';
import { benchEndpointId } from '../lib/state.js';

const MB = 1024 * 1024;

/**
 * When the reads and writes figures did not run (`--only memory`), some load of both kinds, so that "after" means
 * something.
 */
async function someLoad(bench, url) {
  await bench.load({ url, path: `/epr/api/v1/endpoints/${benchEndpointId(1)}`, connections: 50 });
  await bench.load({ url, path: '/epr/api/v1/endpoints?limit=100&include=metadata', connections: 50 });
  const body = { appVersion: { name: 'smart-meter-v1' } };
  await bench.load({
    url,
    path: '/epr/api/v1/endpoints',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    connections: 50,
    amount: bench.profile.concurrentWrites,
  });
}

export default {
  name: 'memory',
  async run(bench) {
    const emulator = await bench.sharedEmulator();
    if (emulator.served === 0) await someLoad(bench, emulator.url);
    const settledAfter = await bench.settledRss(emulator);
    const liveAfter = await emulator.rssAfterGc();
    const endpointsAfter = await endpointCount(emulator.url);
    const floor = await bench.using(
      () => bench.startReference('bare-http', bench.file('bare-memory.json', { routes: {} })),
      async (server) => server.rss(),
    );
    const mb = (bytes) => formatValue(bytes / MB, 'MB');
    return [
      measure({
        id: '5a',
        name: `RSS at ${bench.profile.endpoints} endpoints + ${bench.profile.commands} commands`,
        unit: 'MB',
        value: emulator.rssAtStart / MB,
        reference: floor / MB,
        referenceName: 'bare node:http',
        target: { on: 'value', op: '<', limit: 250 },
        note:
          `idle ${bench.profile.settleSeconds} s after start; ${mb(emulator.rssAtReady)} the moment it was ` +
          `ready, ${mb(emulator.liveAtStart)} after a full GC`,
      }),
      // Compared after a full collection each time: the question is what the process keeps, not when V8 last collected.
      measure({
        id: '5b',
        name: 'RSS after the read and write runs (full GC)',
        unit: 'MB',
        value: liveAfter / MB,
        reference: emulator.liveAtStart / MB,
        referenceName: 'same, before them',
        target: { on: 'ratio', op: '<=', limit: 1.2 },
        note:
          `${emulator.served} requests served in between, whose writes took the endpoints from ` +
          `${emulator.endpointsAtStart} to ${endpointsAfter}; ` +
          `without a forced GC: ${mb(emulator.rssAtStart)} before, ${mb(settledAfter)} after`,
      }),
    ];
  },
};
