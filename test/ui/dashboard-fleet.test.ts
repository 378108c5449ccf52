import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { registerEndpoint } from '../gateway/device.js';
import { upload, uploadToken } from '../helpers/bcx.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/index.js';
import { hasChromium, CHROMIUM, launchBrowser } from './browser.js';

if (!hasChromium) console.warn(`Skipping the dashboard's fleet tests: no Chromium at ${CHROMIUM}.`);

/**
 * A fleet the page can show: events applied to what is shown, a page's connection states, a frame's updates at once.
 */
describe.skipIf(!hasChromium)('the dashboard with a fleet', () => {
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

  /** A new page whose stream of journal entries (`/_emu/events?types=request,kp1`) opens only once released. */
  async function pageWithJournalHeldBack(): Promise<{ late: Page; release: () => void }> {
    const late = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    late.setDefaultTimeout(15_000);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await late.route(
      (url) => url.pathname === '/_emu/events' && url.searchParams.get('types') === 'request,kp1',
      async (route) => {
        await released;
        await route.continue();
      },
    );
    return { late, release };
  }

  it('applies registrations to the endpoints shown instead of reading the list again for each', async () => {
    await page.goto(`${emulator.url}/_emu/ui/#/endpoints`);
    const summary = page.getByTestId('endpoints-summary');
    await summary.getByText(/^Endpoints 1–\d+ of \d+$/).waitFor();
    const before = Number((await summary.textContent())!.match(/of (\d+)/)![1]);
    const connectionQueries: string[] = [];
    let reads = 0;
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname === '/epr/api/v1/endpoints') reads++;
      if (url.pathname === '/_emu/connections') connectionQueries.push(url.search);
    });
    const registrations = 30;
    for (let i = 0; i < registrations; i++) await registerEndpoint(emulator);
    await summary.getByText(`of ${before + registrations}`, { exact: false }).waitFor();
    // The new endpoints fill the page's room in a read per animation frame at most, never one per event.
    expect(reads).toBeLessThan(registrations / 2);
    // Connection states are read for the endpoints shown, by id: never the whole list.
    expect(connectionQueries.length).toBeGreaterThan(0);
    for (const query of connectionQueries) expect(new URLSearchParams(query).get('endpointId')).toBeTruthy();
  });

  it('shows a connection as it changes, without reading the list again', async () => {
    let reads = 0;
    page.on('request', (r) => new URL(r.url()).pathname === '/epr/api/v1/endpoints' && reads++);
    const cell = page.getByTestId('connection-meter-002');
    await cell.getByText('offline').waitFor();
    const started = await api(emulator)('POST', '/_emu/devices', { body: { endpointId: 'meter-002' } });
    expect(started.status).toBe(201);
    await cell.getByText('online').waitFor();
    expect(reads).toBe(0);
  });

  it('adds the overview\'s "Last requests" once per animation frame, however many arrive', async () => {
    await page.goto(`${emulator.url}/_emu/ui/`);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.getByText('events: live').waitFor();
    // Frames and additions to the table are counted together while a burst of messages arrives.
    await page.evaluate(() => {
      const counts = { frames: 0, additions: 0, rows: 0 };
      (window as any).counts = counts;
      const frame = () => (counts.frames++, requestAnimationFrame(frame));
      requestAnimationFrame(frame);
      const tbody = [...document.querySelectorAll('table')].at(-1)!.querySelector('tbody')!;
      new MutationObserver((records) => {
        for (const record of records)
          if (record.addedNodes.length > 0) (counts.additions++, (counts.rows += record.addedNodes.length));
      }).observe(tbody, { childList: true });
    });
    const call = api(emulator);
    const burst = 100;
    await Promise.all(
      Array.from({ length: burst }, (_, i) =>
        call('POST', '/kp1/smart-meter-v1/dcx/meter-001-token/json', { body: { temperature: i } }),
      ),
    );
    await expect.poll(() => page.evaluate(() => (window as any).counts.rows)).toBeGreaterThan(0);
    await page.waitForFunction(() => {
      const c = (window as any).counts;
      return c.frames > 0;
    });
    const counts = await page.evaluate(() => (window as any).counts);
    expect(counts.additions).toBeLessThanOrEqual(counts.frames + 1);
    expect(counts.additions).toBeLessThan(burst);
    expect(await page.locator('table').last().locator('tbody tr').count()).toBe(10);
  });

  it("receives the journal's entries only on the pages that list them", async () => {
    // What the page's event streams deliver, as the browser's network layer sees it.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    const received: string[] = [];
    cdp.on('Network.eventSourceMessageReceived', (message) => received.push(message.eventName));
    const call = api(emulator);
    const sample = () => call('POST', '/kp1/smart-meter-v1/dcx/meter-001-token/json', { body: { temperature: 21 } });

    // A fresh load: the streams must open after the network is watched.
    await page.goto('about:blank');
    await page.goto(`${emulator.url}/_emu/ui/#/endpoints`);
    await page
      .getByTestId('endpoints-summary')
      .getByText(/^Endpoints 1–/)
      .waitFor();
    await page.getByText('events: live').waitFor();
    for (let i = 0; i < 5; i++) expect((await sample()).status).toBe(200);
    // A faults event after the samples, on the stream the page follows: once it is in, so would the samples be.
    const fault = { kind: 'http', path: '/nowhere', status: 503 };
    expect((await call('POST', '/_emu/faults', { body: fault })).status).toBe(201);
    expect((await call('DELETE', '/_emu/faults')).status).toBe(204);
    await expect.poll(() => received.includes('faults')).toBe(true);
    expect(received.filter((type) => type === 'kp1' || type === 'request')).toEqual([]);

    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await expect
      .poll(async () => (expect((await sample()).status).toBe(200), received.includes('kp1')), { timeout: 10_000 })
      .toBe(true);
    await cdp.detach();
  });
  it.each([
    ['overview', ''],
    ['request journal', '#/journal'],
  ])("the %s shows a request made while the journal's stream was still opening, once", async (_page, hash) => {
    // The stream of journal entries is held back until the request below is in the journal.
    const { late, release } = await pageWithJournalHeldBack();
    await late.goto(`${emulator.url}/_emu/ui/${hash}`);
    await late.getByText('events: live').waitFor();
    const probe = `/epr/api/v1/endpoints/late-stream-probe${hash ? '-journal' : ''}`;
    expect((await api(emulator)('GET', probe)).status).toBe(404);
    release();
    const requests = late.locator('table').last();
    await requests.getByText(probe).waitFor();
    // Read with the last entries and received on the stream as well: shown once.
    expect(await requests.getByText(probe).count()).toBe(1);
    await late.close();
  });

  it("the endpoint page shows a blob uploaded while the journal's stream was still opening", async () => {
    const { late, release } = await pageWithJournalHeldBack();
    let endpointReads = 0;
    late.on('request', (r) => new URL(r.url()).pathname === '/epr/api/v1/endpoints/meter-001' && endpointReads++);
    await late.goto(`${emulator.url}/_emu/ui/#/endpoints/meter-001`);
    await late.getByText('events: live').waitFor();
    // The page begins its reads in the same task that opens the other stream, long before "live": it has none yet.
    expect(endpointReads).toBe(0);
    const uploaded = await upload(
      emulator,
      '/binary-data?name=while-opening.txt',
      'kwh=7',
      await uploadToken(emulator),
    );
    expect(uploaded.status).toBe(201);
    release();
    await late.getByRole('link', { name: 'Download while-opening.txt' }).waitFor();
    await late.close();
  });

  it('keeps showing events where no animation frame runs, as in a hidden tab (nothing piles up)', async () => {
    const hidden = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    hidden.setDefaultTimeout(15_000);
    // A background tab draws no frames: requestAnimationFrame's callbacks never run there.
    await hidden.addInitScript(() => (window.requestAnimationFrame = () => 0));
    await hidden.goto(`${emulator.url}/_emu/ui/`);
    await hidden.getByText('events: live').waitFor();
    const probe = '/epr/api/v1/endpoints/hidden-tab-probe';
    expect((await api(emulator)('GET', probe)).status).toBe(404);
    await hidden.locator('table').last().getByText(probe).waitFor();
    await hidden.close();
  });
});
