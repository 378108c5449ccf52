import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/index.js';
import { hasChromium, CHROMIUM, launchBrowser } from './browser.js';

if (!hasChromium) console.warn(`Skipping the dashboard's tenant and scope tests: no Chromium at ${CHROMIUM}.`);

/** With --auth on: every tenant's user acts on its own endpoints; a viewer is told what it may not see, truly. */
describe.skipIf(!hasChromium)('the dashboard with auth on, for every tenant and scope', () => {
  let emulator: RunningEmulator;
  let browser: Browser;

  beforeAll(async () => {
    emulator = await startTestEmulator({ auth: 'on' });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(() => browser?.close());

  async function signIn(realm: string, user: string, password: string, hash: string, heading: string): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${emulator.url}/_emu/ui/${hash}`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.getByLabel('Realm').fill(realm);
    await page.getByRole('button', { name: /Sign in with the realm/ }).click();
    await page.getByLabel('User name').fill(user);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    return page;
  }

  it('says "not signed in" on the sign-in page, not "connecting…" forever', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${emulator.url}/_emu/ui/`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await page.locator('#status').textContent()).toBe('not signed in');
  });

  it("saves metadata and starts a device for another tenant's endpoint, as its signed-in user", async () => {
    const page = await signIn(
      'globex',
      'dev@globex.test',
      'dev-password',
      '#/endpoints/thermo-001',
      'Endpoint thermo-001',
    );
    await page.getByRole('link', { name: 'Devices' }).click();
    await page.getByLabel('Admin token').fill(emulator.adminToken);
    await page.getByRole('button', { name: 'Use admin token' }).click();
    await page.getByRole('heading', { level: 1, name: 'Simulated devices' }).waitFor();
    await page.getByText('events: live').waitFor();
    // The admin token is kept in the page's memory only: no storage another script could read later holds it.
    const stored = await page.evaluate(
      () => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }),
    );
    expect(stored).not.toContain(emulator.adminToken);

    await page.getByLabel('Endpoint id').fill('thermo-001');
    await page.getByRole('button', { name: 'Start device' }).click();
    await page.getByRole('button', { name: 'Stop thermo-001' }).waitFor();

    await page.getByRole('link', { name: 'thermo-001' }).click();
    await page.getByRole('heading', { level: 1, name: 'Endpoint thermo-001' }).waitFor();
    await page.getByLabel('Metadata (JSON object, replaces all keys)').fill('{"room": "lab"}');
    await page.getByRole('button', { name: 'Save metadata' }).click();
    await page.getByTestId('metadata-message').getByText('Metadata saved.').waitFor();
    const token = (
      await api(emulator)('POST', '/_emu/token', { body: { tenant: 'globex' }, token: emulator.adminToken })
    ).body.token;
    const held = await api(emulator)('GET', '/epr/api/v1/endpoints/thermo-001?include=metadata', { token });
    expect(held.body.metadata).toEqual({ room: 'lab' });
  });

  it('tells a viewer which scope telemetry and software need, and makes its fields read-only', async () => {
    const page = await signIn(
      'acme',
      'viewer@acme.test',
      'viewer-password',
      '#/endpoints/meter-001',
      'Endpoint meter-001',
    );
    await page.getByTestId('telemetry').getByText('needs the scope application:timeseries-config:read').waitFor();
    await page.getByText('needs the scope application:software:read').waitFor();
    expect(await page.getByText('The application has no time series yet.').count()).toBe(0);
    expect(await page.getByText('The application offers no software.').count()).toBe(0);
    expect(await page.getByLabel(/Configuration for smart-meter-v1/).getAttribute('readonly')).not.toBeNull();
    expect(await page.getByLabel('Payload (JSON)').getAttribute('readonly')).not.toBeNull();
    expect(await page.getByLabel('Metadata (JSON object, replaces all keys)').getAttribute('readonly')).not.toBeNull();
    // Without the control plane, the number of devices online is not known: not shown rather than shown as 0.
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(await page.getByTestId('online-count').count()).toBe(0);
  });
});
