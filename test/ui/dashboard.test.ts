import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/index.js';
import { hasChromium, CHROMIUM, launchBrowser, screenshot, seriousViolations } from './browser.js';

if (!hasChromium)
  console.warn(
    `Skipping the dashboard's browser test: no Chromium at ${CHROMIUM} (apt-get install chromium, or set ` +
      `CHROMIUM_PATH).`,
  );

/** A user's path through the dashboard, in one browser and one page. */
describe.skipIf(!hasChromium)('the dashboard in a browser', () => {
  let emulator: RunningEmulator;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(15_000);
  }, 60_000);
  afterAll(() => browser?.close());

  const open = async (hash: string, heading: string) => {
    await page.goto(`${emulator.url}/_emu/ui/${hash}`);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  };
  const accessible = async () => expect(await seriousViolations(page)).toEqual([]);

  it('shows the overview with the emulator and its applications', async () => {
    await open('', 'Overview');
    await page.getByText(emulator.mqttUrl).waitFor();
    await page.locator('a[href="#/endpoints?version=smart-meter-v1"]').waitFor();
    // Every service of the health answer, with the records it holds.
    const health = await (await fetch(`${emulator.url}/_emu/health`)).json();
    for (const service of health.services)
      await page.getByTestId(`service-${service.name}`).getByText(service.title, { exact: true }).waitFor();
    await screenshot(page, 'overview');
    await accessible();
  });

  it('finds an endpoint by its id', async () => {
    await page.getByRole('link', { name: 'Endpoints' }).click();
    await page.getByRole('heading', { level: 1, name: 'Endpoints' }).waitFor();
    await page.getByText(/Endpoints 1–\d+ of \d+/).waitFor();
    await screenshot(page, 'endpoints');
    await accessible();
    await page.getByLabel('Endpoint ids').fill('meter-001');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('Endpoints 1–1 of 1').waitFor();
  });

  it('starts a simulated device with an answer rule', async () => {
    await open('#/devices', 'Simulated devices');
    await page.getByLabel('Endpoint id').fill('meter-001');
    await page.getByLabel('Command type').fill('reboot');
    await page.getByLabel('Answer payload (JSON)').fill('{"rebooted": true}');
    await page.getByLabel('Telemetry (optional)').fill('temperature=20..25');
    await page.getByRole('button', { name: 'Start device' }).click();
    await page.getByRole('button', { name: 'Stop meter-001' }).waitFor();
    await screenshot(page, 'devices');
    await accessible();
  });

  it("invokes a command and sees the device's answer arrive live", async () => {
    await page.getByRole('link', { name: 'meter-001' }).click();
    await page.getByRole('heading', { level: 1, name: 'Endpoint meter-001' }).waitFor();
    await page.getByLabel('Command type').fill('reboot');
    await page.getByLabel('Wait (seconds)').fill('0');
    await page.getByRole('button', { name: 'Invoke' }).click();
    await page.getByTestId('command-status').filter({ hasText: 'EXECUTED' }).waitFor();
    await expect(page.getByTestId('command-response').textContent()).resolves.toContain('"rebooted": true');
  });

  it("charts the device's telemetry as samples arrive", async () => {
    // The device sends a sample a second: the chart is redrawn by each one, without reloading the page.
    await page.getByRole('img', { name: /^temperature: ([2-9]|\d\d+) points/ }).waitFor();
  });

  it("refuses a configuration the version's schema does not allow, and says why", async () => {
    await page.getByLabel(/Configuration for smart-meter-v1/).fill('{"reportingIntervalSeconds": "often"}');
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await expect(page.getByTestId('config-error').textContent()).resolves.toMatch(/Not saved \(422\)/);
    await screenshot(page, 'endpoint');
    await accessible();
  });

  it('advances the clock', async () => {
    await page.getByRole('link', { name: 'Clock and faults' }).click();
    await page.getByRole('heading', { level: 1, name: 'Clock and faults' }).waitFor();
    await page.getByLabel(/Advance by/).fill('2h');
    await page.getByRole('button', { name: 'Advance' }).click();
    await page.getByTestId('clock-mode').filter({ hasText: 'offset' }).waitFor();
    await screenshot(page, 'clock');
    // An event reaches the page at once: from its arrival on a second stream to the DOM showing it.
    const { arrived, shown } = await page.evaluate(async () => {
      const clockNow = document.querySelector('[data-testid="clock-now"]')!;
      const stream = new EventSource('/_emu/events?types=clock');
      await new Promise((resolve) => (stream.onopen = resolve));
      const times = { arrived: 0, shown: 0 };
      const seen = new Promise<void>((resolve) => {
        stream.addEventListener('clock', () => ((times.arrived = performance.now()), times.shown && resolve()));
        new MutationObserver(() => ((times.shown = performance.now()), times.arrived && resolve())).observe(clockNow, {
          childList: true,
          characterData: true,
          subtree: true,
        });
      });
      await fetch('/_emu/clock', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: '{"advance": "1m"}',
      });
      await seen;
      stream.close();
      return times;
    });
    expect(shown - arrived).toBeLessThan(100);
  });

  it('adds a fault, sees it in force, and clears it', async () => {
    await page.getByLabel('Path', { exact: true }).fill('/epr');
    await page.getByRole('button', { name: 'Add fault' }).click();
    await page.getByRole('button', { name: /^Remove fault-\d+$/ }).waitFor();
    expect((await api(emulator)('GET', '/_emu/faults')).body).toEqual([
      expect.objectContaining({ kind: 'http', path: '/epr', status: 503 }),
    ]);
    await page.getByRole('button', { name: 'Clear all faults' }).click();
    await page.getByText('No faults.').waitFor();
    expect((await api(emulator)('GET', '/_emu/faults')).body).toEqual([]);
    await accessible();
  });

  it('shows a captured mail as it arrives, with its link', async () => {
    await page.getByRole('link', { name: 'Mail' }).click();
    await page.getByRole('heading', { level: 1, name: 'Captured mail' }).waitFor();
    const added = await api(emulator)('POST', '/automation/api/v1/notification-types/email/recipients', {
      body: { recipient: 'ops@acme.test' },
    });
    expect(added.status).toBeLessThan(300);
    const mail = page.getByRole('article').filter({ hasText: 'ops@acme.test' });
    await mail.waitFor();
    expect(await mail.getByRole('link').count()).toBeGreaterThan(0);
    await screenshot(page, 'mail');
    await accessible();
  });

  it('tails the journal and shows an entry whole', async () => {
    await page.getByRole('link', { name: 'Journal' }).click();
    await page.getByRole('heading', { level: 1, name: 'Request journal' }).waitFor();
    await page.getByLabel('Type').selectOption('kp1');
    await page.getByRole('button', { name: 'Filter' }).click();
    // The filtered table replaces the old one when its answer arrives: wait for a KP1 row rather than take any first
    // row.
    const kp1Row = page.locator('tbody tr', { hasText: /KP1 (in|out)/ }).first();
    await kp1Row.waitFor();
    await kp1Row.locator('button').click();
    await expect.poll(() => page.getByTestId('journal-detail').textContent()).toContain('"type": "kp1"');
    await screenshot(page, 'journal');
    await accessible();
  });

  it('lists the endpoints online now, paged by the control plane', async () => {
    await open('#/endpoints', 'Endpoints');
    const asked = page.waitForRequest((r) => r.url().includes('/_emu/connections/online?'));
    await page.getByLabel('Online only').check();
    expect(new URL((await asked).url()).searchParams.get('endpointId')).toBeNull();
    // The simulated device started above is the one endpoint online.
    await page.getByText('Endpoints 1–1 of 1').waitFor();
    await page.getByRole('link', { name: 'meter-001' }).waitFor();
  });

  it("lists the endpoint's blobs with their downloads", async () => {
    const call = api(emulator);
    const { token } = (await call('POST', '/kp1/smart-meter-v1/bcx/meter-001-token/token')).body;
    const uploaded = await call('POST', '/bcx/api/v1/binary-data?name=reading.txt', {
      rawBody: 'kwh=42',
      headers: { 'x-auth-token': token, 'content-type': 'text/plain' },
    });
    expect(uploaded.status).toBeLessThan(300);
    await open('#/endpoints/meter-001', 'Endpoint meter-001');
    const link = page.getByRole('link', { name: 'Download reading.txt' });
    const href = await link.getAttribute('href');
    expect(await (await fetch(`${emulator.url}${href}`)).text()).toBe('kwh=42');
  });
});
