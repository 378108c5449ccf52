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

/**
 * The pages of `--auth on` at both widths: the dashboard's sign-in, the realm's login page, an endpoint as a viewer
 * sees it (what needs endpoint:update disabled) and the admin token's page (`<page>-<width>.png`).
 */
describe.skipIf(!hasChromium)('the dashboard with auth on at 1280 and 390 px wide', () => {
  let emulator: RunningEmulator;
  let browser: Browser;

  beforeAll(async () => {
    emulator = await startTestEmulator({ auth: 'on' });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(() => browser?.close());

  for (const width of [1280, 390]) {
    it(`shows the sign-in, viewer and admin token pages at ${width} px`, async () => {
      // A context of its own for each width: the user's token lives in the tab's sessionStorage.
      const context = await browser.newContext({ viewport: { width, height: width === 390 ? 844 : 800 } });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      const take = async (name: string, heading: string) => {
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        await screenshot(page, `${name}-${width}`);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${name} at ${width} px`).toBeLessThanOrEqual(0);
      };
      await page.goto(`${emulator.url}/_emu/ui/#/endpoints/meter-001`);
      await take('sign-in', 'Sign in');
      await page.getByLabel('Realm').fill('acme');
      await page.getByRole('button', { name: /Sign in with the realm/ }).click();
      await take('sign-in-realm', 'Sign in to acme');
      await page.getByLabel('User name').fill('viewer@acme.test');
      await page.getByLabel('Password').fill('viewer-password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('(needs the scope endpoint:update)').first().waitFor();
      await take('endpoint-viewer', 'Endpoint meter-001');
      await page.getByRole('link', { name: 'Journal' }).click();
      await take('admin-token', 'Admin token needed');
      await context.close();
    }, 90_000);
  }
});
