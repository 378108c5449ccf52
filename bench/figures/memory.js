// Figure 5: the emulator's resident memory at the large state, and after the read and write runs.
import { formatValue, measure } from '../lib/report.js';
import { benchEndpointId } from '../lib/state.js';

const MB = 1024 * 1024;

/** When the reads and writes figures did not run (`--only memory`), some load of both kinds, so that "after" means something. */
async function someLoad(bench, url) {
  await bench.load({ url, path: `/epr/api/v1/endpoints/${benchEndpointId(1)}`, connections: 50 });
  await bench.load({ url, path: '/epr/api/v1/endpoints?limit=100&include=metadata', connections: 50 });
  const body = { appVersion: { name: 'smart-meter-v1' } };
  await bench.load({ url, path: '/epr/api/v1/endpoints', method: 'POST', headers: { 'content-type': 'application/json' }, body, connections: 50, amount: bench.profile.concurrentWrites });
}

export default {
  name: 'memory',
  async run(bench) {
    const emulator = await bench.sharedEmulator();
    if (emulator.served === 0) await someLoad(bench, emulator.url);
    const after = await bench.settledRss(emulator);
    const floor = await bench.using(
      () => bench.startReference('bare-http', bench.file('bare-memory.json', { routes: {} })),
      async (server) => server.rss(),
    );
    return [
      measure({ id: '5a', name: `RSS at ${bench.profile.endpoints} endpoints + ${bench.profile.commands} commands`, unit: 'MB', value: emulator.rssAtStart / MB, reference: floor / MB, referenceName: 'bare node:http', target: { on: 'value', op: '<', limit: 250 }, note: `idle ${bench.profile.settleSeconds} s after start; ${formatValue(emulator.rssAtReady / MB, 'MB')} at the moment it was ready` }),
      measure({ id: '5b', name: 'RSS after the read and write runs', unit: 'MB', value: after / MB, reference: emulator.rssAtStart / MB, referenceName: 'RSS at start', target: { on: 'ratio', op: '<=', limit: 1.2 }, note: `idle ${bench.profile.settleSeconds} s after the runs; ${emulator.served} requests served in between` }),
    ];
  },
};
