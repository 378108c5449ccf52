// Figure 12: the dashboard: what a first visit downloads (gzip) and its first paint from the local server.
import { launchChromium } from '../lib/chromium.js';
import { measure } from '../lib/report.js';
import { median } from '../lib/stats.js';

const KB = 1024;

/** First contentful paint of a URL in a fresh browser context (nothing cached), in ms. */
async function firstPaint(browser, url, ready) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForSelector(ready);
    return await page.evaluate(
      () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
    );
  } finally {
    await context.close();
  }
}

export default {
  name: 'ui',
  async run(bench) {
    // dist/ is built by `npm run bench`; the assets are read as the emulator reads them.
    const { loadUiAssets } = await import('../../dist/ui/assets.js');
    const assets = loadUiAssets();
    let raw = assets.index.body.length;
    for (const file of assets.files.values()) raw += file.body.length;
    const rows = [
      measure({
        id: '12a',
        name: `dashboard download, gzip (${assets.files.size + 1} files)`,
        unit: 'KB',
        value: Math.round((assets.gzipBytes / KB) * 10) / 10,
        reference: Math.round((raw / KB) * 10) / 10,
        referenceName: 'uncompressed',
        target: { on: 'value', op: '<', limit: 300 },
      }),
    ];
    const browser = await launchChromium(bench, 'figure 12b');
    if (!browser) return rows;
    try {
      const emulator = await bench.sharedEmulator();
      const page = bench.file('bare-page.json', {
        routes: {
          'GET /': {
            status: 200,
            contentType: 'text/html; charset=utf-8',
            body: '<!doctype html><title>t</title><h1>Overview</h1>',
          },
        },
      });
      const times = { ui: [], floor: [] };
      await bench.using(
        () => bench.startReference('bare-http', page),
        async (reference) => {
          for (let i = 0; i < bench.profile.paints; i++) {
            times.floor.push(await firstPaint(browser, `${reference.url}/`, 'h1'));
            times.ui.push(
              await firstPaint(browser, `${emulator.url}/_emu/ui/`, 'text=Endpoints per application version'),
            );
          }
        },
      );
      rows.push(
        measure({
          id: '12b',
          name: 'dashboard first paint (overview)',
          unit: 'ms',
          value: median(times.ui),
          reference: median(times.floor),
          rounds: times.ui,
          referenceName: 'static page, bare node:http',
          target: { on: 'value', op: '<', limit: 300 },
        }),
      );
    } finally {
      await browser.close();
    }
    return rows;
  },
};
