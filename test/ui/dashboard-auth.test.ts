import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/index.js';
import { hasChromium, CHROMIUM, launchBrowser, screenshot, seriousViolations } from './browser.js';

if (!hasChromium) console.warn(`Skipping the dashboard's auth-on browser test: no Chromium at ${CHROMIUM}.`);

/** With --auth on: sign in through the realm's login page (PKCE), act with the user's scopes. */
describe.skipIf(!hasChromium)('the dashboard with auth on, in a browser', () => {
  let emulator: RunningEmulator;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    emulator = await startTestEmulator({ auth: 'on' });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(15_000);
  }, 60_000);
  afterAll(() => browser?.close());

  it("signs a user in through the realm's login page and shows what the user may not do as disabled", async () => {
    await page.goto(`${emulator.url}/_emu/ui/#/endpoints/meter-001`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Realm').fill('acme');
    await page.getByRole('button', { name: /Sign in with the realm/ }).click();

    await page.getByRole('heading', { level: 1, name: 'Sign in to acme' }).waitFor();
    await screenshot(page, 'sign-in');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('User name').fill('viewer@acme.test');
    await page.getByLabel('Password').fill('viewer-password');
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.getByRole('heading', { level: 1, name: 'Endpoint meter-001' }).waitFor();
    await page.getByText('signed in as viewer@acme.test').waitFor();
    expect(await page.getByRole('button', { name: 'Invoke' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Save configuration' }).isDisabled()).toBe(true);
    await page.getByText('(needs the scope endpoint:update)').first().waitFor();
    // Without the scope of the application's command listing, the history lists the types the viewer names.
    const history = page.locator('section[aria-labelledby="commands-h"] tbody');
    await history.getByText('Name the command types to list').waitFor();
    const token = await tokenFor(emulator, { scopes: ['endpoint:update'] });
    const invoked = await api(emulator)('POST', '/cex/api/v1/endpoints/meter-001/commands/reboot?waitTimeout=0', {
      body: {},
      token,
    });
    expect(invoked.status).toBe(202);
    await page.getByLabel('Types in the history (comma-separated)').fill('reboot');
    await page.getByRole('button', { name: 'List', exact: true }).click();
    await history.locator('tr', { hasText: String(invoked.body.commandId) }).waitFor();
    await screenshot(page, 'endpoint-viewer');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('asks for the admin token before a control-plane page, then opens it', async () => {
    await page.getByRole('link', { name: 'Journal' }).click();
    await page.getByRole('heading', { level: 1, name: 'Admin token needed' }).waitFor();
    await page.getByLabel('Admin token').fill(emulator.adminToken);
    await page.getByRole('button', { name: 'Use admin token' }).click();
    await page.getByRole('heading', { level: 1, name: 'Request journal' }).waitFor();
    await page.getByText('events: live').waitFor();
  });
});
