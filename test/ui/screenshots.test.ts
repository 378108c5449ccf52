import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/index.js';
import { hasChromium, CHROMIUM, launchBrowser, screenshot } from './browser.js';

if (!hasChromium) console.warn(`Skipping the dashboard's screenshots: no Chromium at ${CHROMIUM}.`);

const PAGES: Array<[name: string, hash: string, heading: string]> = [
  ['overview', '', 'Overview'],
  ['endpoints', '#/endpoints', 'Endpoints'],
  ['endpoint', '#/endpoints/meter-001', 'Endpoint meter-001'],
  ['devices', '#/devices', 'Simulated devices'],
  ['journal', '#/journal', 'Request journal'],
  ['clock', '#/clock', 'Clock and faults'],
  ['mail', '#/mail', 'Captured mail'],
];

/**
 * Every page at 1280 and 390 px wide, to test/artifacts/<page>-<width>.png (docs/ui.md says how docs/images/ are
 * made from them), with a running device so that the pages have something to show. At 390 px nothing makes the page
 * itself scroll sideways: wide tables scroll in their own box.
 */
describe.skipIf(!hasChromium)('the dashboard at 1280 and 390 px wide', () => {
  let emulator: RunningEmulator;
  let browser: Browser;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    browser = await launchBrowser();
    const started = await api(emulator)('POST', '/_emu/devices', {
      body: { endpointId: 'meter-001', telemetry: { sample: 'temperature=20..25', intervalMs: 300 } },
    });
    expect(started.status).toBe(201);
    await api(emulator)('POST', '/automation/api/v1/notification-types/email/recipients', {
      body: { recipient: 'ops@acme.test' },
    });
  }, 60_000);
  afterAll(() => browser?.close());

  for (const width of [1280, 390]) {
    it(`shows every page at ${width} px`, async () => {
      const page: Page = await browser.newPage({ viewport: { width, height: width === 390 ? 844 : 800 } });
      page.setDefaultTimeout(15_000);
      for (const [name, hash, heading] of PAGES) {
        await page.goto('about:blank');
        await page.goto(`${emulator.url}/_emu/ui/${hash}`);
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        if (name === 'endpoint') await page.getByRole('img', { name: /^temperature: [1-9]\d* points/ }).waitFor();
        if (name === 'endpoints') await page.getByTestId('connection-meter-001').getByText('online').waitFor();
        await screenshot(page, `${name}-${width}`);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${name} at ${width} px`).toBeLessThanOrEqual(0);
      }
      await page.close();
    }, 90_000);
  }
});
