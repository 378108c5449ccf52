import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/index.js';
import { hasChromium, CHROMIUM, launchBrowser } from './browser.js';

if (!hasChromium) console.warn(`Skipping the dashboard's defect tests: no Chromium at ${CHROMIUM}.`);

/** Issue 32's defects and issue 30's dashboard bullet, each as a user meets it in the browser (auth off). */
describe.skipIf(!hasChromium)('the dashboard tells the truth', () => {
  let emulator: RunningEmulator;
  let browser: Browser;
  let page: Page;
  let call: ReturnType<typeof api>;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    emulator = await startTestEmulator();
    call = api(emulator);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (err) => pageErrors.push(err.message));
  }, 60_000);
  afterAll(() => browser?.close());

  const open = async (hash: string, heading: string | RegExp) => {
    // A fresh load each time, even of the page already shown.
    await page.goto('about:blank');
    await page.goto(`${emulator.url}/_emu/ui/${hash}`);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  };
  const metadataText = () => page.getByLabel('Metadata (JSON object, replaces all keys)').inputValue();
  const kp1 = (path: string, body: unknown) => call('POST', `/kp1/smart-meter-v1/${path}`, { body });

  it('shows the metadata the register holds now, not a copy from the HTTP cache', async () => {
    // With the virtual clock a day back, the record's Last-Modified is a day older than the answer's Date: without
    // Cache-Control, Chromium would reuse its copy for hours (heuristic freshness).
    const dayAgo = new Date(Date.now() - 86_400_000).toISOString();
    expect((await call('PUT', '/_emu/clock', { body: { now: dayAgo } })).status).toBe(200);
    expect((await kp1('epmx/meter-002-token/update/keys', { site: 'attic' })).status).toBe(200);
    await open('#/endpoints/meter-002', 'Endpoint meter-002');
    expect(JSON.parse(await metadataText())).toMatchObject({ site: 'attic' });
    expect((await kp1('epmx/meter-002-token/update/keys', { site: 'roof' })).status).toBe(200);
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'Endpoint meter-002' }).waitFor();
    expect(JSON.parse(await metadataText())).toMatchObject({ site: 'roof' });
    expect((await kp1('epmx/meter-002-token/update/keys', { site: 'porch' })).status).toBe(200);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Endpoint meter-002' }).waitFor();
    expect(JSON.parse(await metadataText())).toMatchObject({ site: 'porch' });
    expect((await call('PUT', '/_emu/clock', { body: { real: true } })).status).toBe(200);
  });

  it('refuses to save metadata over a newer record (412) and offers the current one', async () => {
    await open('#/endpoints/meter-002', 'Endpoint meter-002');
    expect((await kp1('epmx/meter-002-token/update/keys', { site: 'cellar' })).status).toBe(200);
    await page.getByLabel('Metadata (JSON object, replaces all keys)').fill('{"site": "garden"}');
    await page.getByRole('button', { name: 'Save metadata' }).click();
    await page
      .getByTestId('metadata-message')
      .getByText(/changed since it was shown here \(412\)/)
      .waitFor();
    const held = await call('GET', '/epr/api/v1/endpoints/meter-002?include=metadata');
    expect(held.body.metadata.site).toBe('cellar');
    await page.getByRole('button', { name: 'Show the current metadata' }).click();
    await expect.poll(async () => JSON.parse(await metadataText()).site).toBe('cellar');
    await page.getByLabel('Metadata (JSON object, replaces all keys)').fill('{"site": "garden"}');
    await page.getByRole('button', { name: 'Save metadata' }).click();
    await page.getByTestId('metadata-message').getByText('Metadata saved.').waitFor();
    expect((await call('GET', '/epr/api/v1/endpoints/meter-002?include=metadata')).body.metadata).toEqual({
      site: 'garden',
    });
  });

  it("shows a device's failure as one: its status code and reason phrase, in the result and the history", async () => {
    const started = await call('POST', '/_emu/devices', {
      body: {
        endpointId: 'meter-003',
        rules: { commands: { heat: { statusCode: 500, reasonPhrase: 'Heater broken' } } },
      },
    });
    expect(started.status).toBe(201);
    await open('#/endpoints/meter-003', 'Endpoint meter-003');
    await page.getByLabel('Command type').fill('heat');
    await page.getByLabel('Wait (seconds)').fill('10');
    await page.getByRole('button', { name: 'Invoke' }).click();
    const outcome = page.getByTestId('command-outcome');
    await outcome.getByText('status 500 Heater broken').waitFor();
    expect(await page.getByTestId('command-result').locator('p.failure').count()).toBe(1);
    await page.locator('tbody tr.failure', { hasText: '500 Heater broken' }).waitFor();
    // The payload field comes before Invoke, in the page and so in tab order.
    const payloadFirst = await page.evaluate(() => {
      const payload = [...document.querySelectorAll('label')].find((l) => l.textContent?.startsWith('Payload (JSON)'));
      const invoke = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Invoke');
      return Boolean(payload && invoke && payload.compareDocumentPosition(invoke) & Node.DOCUMENT_POSITION_FOLLOWING);
    });
    expect(payloadFirst).toBe(true);
  });

  it(
    "lists the command history by the types it knows: its application's at first, then " +
      'arriving ones, or any named',
    async () => {
      const asked: URLSearchParams[] = [];
      const listen = (request: { url(): string }) => {
        const url = new URL(request.url());
        if (url.pathname === '/cex/api/v1/endpoints/commands') asked.push(url.searchParams);
      };
      page.on('request', listen);
      const invoke = (type: string) =>
        call('POST', `/cex/api/v1/endpoints/meter-004/commands/${type}?waitTimeout=0`, {
          body: {},
        });
      expect((await invoke('alpha')).status).toBe(202);
      await open('#/endpoints/meter-004', 'Endpoint meter-004');
      const history = page.locator('section[aria-labelledby="commands-h"] tbody');
      const listed = page.getByLabel('Types in the history (comma-separated)');
      await history.locator('tr', { hasText: 'alpha' }).waitFor();
      expect(await listed.inputValue()).toBe('alpha');

      // A type invoked elsewhere arrives in an event: the page learns it and asks for it.
      expect((await invoke('beta')).status).toBe(202);
      await history.locator('tr', { hasText: 'beta' }).waitFor();
      expect(await listed.inputValue()).toBe('alpha, beta');

      await listed.fill('beta');
      await page.getByRole('button', { name: 'List', exact: true }).click();
      await expect.poll(() => history.locator('tr').allTextContents()).toEqual([expect.stringContaining('beta')]);
      await listed.fill('');
      await page.getByRole('button', { name: 'List', exact: true }).click();
      await history.getByText('Name the command types to list').waitFor();

      page.off('request', listen);
      expect(asked.length).toBeGreaterThan(0);
      for (const query of asked) expect(query.get('commandTypes')).toMatch(/^[a-z,]+$/);
    },
  );

  it("follows the device's applied configuration, its software and its blobs live", async () => {
    await open('#/endpoints/meter-001', 'Endpoint meter-001');
    const saved = await call('PUT', '/ecr/api/v1/endpoints/meter-001/app-versions/smart-meter-v1', {
      body: { reportingIntervalSeconds: 30 },
    });
    expect(saved.status).toBeLessThan(300);
    const listed = await call('GET', '/ecr/api/v1/endpoints/meter-001');
    const configId = listed.body.find(
      (c: { appVersionName: string }) => c.appVersionName === 'smart-meter-v1',
    ).configId;
    expect((await kp1('cmx/meter-001-token/applied/json', { configId })).status).toBe(200);
    await page.getByTestId('config-state').getByText('The device applied this configuration').waitFor();

    expect((await kp1('epmx/meter-001-token/update/keys', { softwareVersion: '2.1.0' })).status).toBe(200);
    await page.getByTestId('software-applied').getByText('2.1.0').waitFor();

    const { token } = (await kp1('bcx/meter-001-token/token', undefined)).body;
    const uploaded = await call('POST', '/bcx/api/v1/binary-data?name=live.txt', {
      rawBody: 'x',
      headers: { 'x-auth-token': token, 'content-type': 'text/plain' },
    });
    expect(uploaded.status).toBeLessThan(300);
    await page.getByRole('link', { name: 'Download live.txt' }).waitFor();
  });

  it('says so when the clock is set with no time, and throws nothing', async () => {
    await open('#/clock', 'Clock and faults');
    await page.getByRole('button', { name: 'Set', exact: true }).click();
    await page.getByText('Choose a date and time to set the clock to.').waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('shows the fields of the chosen fault kind only, and keeps the focus on the page after Remove', async () => {
    await open('#/clock', 'Clock and faults');
    expect(await page.getByLabel('Method').isVisible()).toBe(true);
    await page.getByLabel('Kind').selectOption('device');
    expect(await page.getByLabel('Method').isVisible()).toBe(false);
    expect(await page.getByLabel('Device mode').isVisible()).toBe(true);
    await page.getByLabel('Kind').selectOption('http');
    await page.getByLabel('Path', { exact: true }).fill('/nothing-here');
    await page.getByRole('button', { name: 'Add fault' }).click();
    await page.getByRole('button', { name: /^Remove fault-\d+$/ }).click();
    await page.getByText('No faults.').waitFor();
    expect(await page.evaluate(() => document.activeElement?.tagName)).not.toBe('BODY');
  });

  it('keeps the focus on the page after Stop on the devices page', async () => {
    await open('#/devices', 'Simulated devices');
    await page.getByRole('button', { name: 'Stop meter-003' }).click();
    await page.getByText('Stopped meter-003.').waitFor();
    expect(await page.evaluate(() => document.activeElement?.tagName)).not.toBe('BODY');
  });

  it('drops "No mail captured yet." when mail arrives after "Forget all mail"', async () => {
    await open('#/mail', 'Captured mail');
    await page.getByRole('button', { name: 'Forget all mail' }).click();
    await page.getByText('No mail captured yet.').waitFor();
    await call('POST', '/automation/api/v1/notification-types/email/recipients', {
      body: { recipient: 'a@acme.test' },
    });
    await page.getByRole('article').filter({ hasText: 'a@acme.test' }).waitFor();
    expect(await page.getByText('No mail captured yet.').count()).toBe(0);
  });

  it('renders only http(s) links: a javascript: link from an imported state stays text', async () => {
    const state = (await call('GET', '/_emu/state?includeSecrets=true')).body;
    const mails = state.collections['captured-mail'];
    const [id] = Object.keys(mails);
    mails[id].links = ['javascript:alert(document.domain)', 'https://example.test/verify'];
    expect((await call('PUT', '/_emu/state', { body: state })).status).toBe(204);
    await open('#/mail', 'Captured mail');
    await page.getByText('javascript:alert(document.domain)').waitFor();
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(await page.locator('a[href="https://example.test/verify"]').count()).toBe(1);
  });

  it('sends a Content-Security-Policy that forbids inline script, and runs under it', async () => {
    const answer = await fetch(`${emulator.url}/_emu/ui/`);
    const csp = answer.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const violations: string[] = [];
    page.on('console', (m) => m.text().includes('Content Security Policy') && violations.push(m.text()));
    for (const [hash, heading] of [
      ['', 'Overview'],
      ['#/endpoints', 'Endpoints'],
      ['#/endpoints/meter-001', 'Endpoint meter-001'],
      ['#/journal', 'Request journal'],
    ])
      await open(hash, heading);
    const ran = await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.injected = true';
      document.body.append(script);
      return 'injected' in window;
    });
    expect(ran).toBe(false);
    violations.length = violations.filter((v) => !v.includes('window.injected')).length;
    expect(violations.filter((v) => !v.includes('inline'))).toEqual([]);
  });

  it('serves an icon, so that no first load asks for /favicon.ico', async () => {
    await open('', 'Overview');
    const href = await page.locator('link[rel="icon"]').getAttribute('href');
    expect((await fetch(new URL(href!, `${emulator.url}/_emu/ui/`))).status).toBe(200);
    const asked = await call('GET', '/_emu/requests?path=/favicon.ico');
    expect(asked.body).toEqual([]);
  });

  it('draws no focus box around the heading on load, while focus still moves to it', async () => {
    await open('', 'Overview');
    const heading = await page.evaluate(() => {
      const h1 = document.querySelector('h1')!;
      return { focused: document.activeElement === h1, outline: getComputedStyle(h1).outlineStyle };
    });
    expect(heading).toEqual({ focused: true, outline: 'none' });
  });
});
