import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { registerEndpoint } from '../gateway/device.js';
import type { RunningEmulator } from '../../src/index.js';
import { hasChromium, CHROMIUM, launchBrowser } from './browser.js';

if (!hasChromium) console.warn(`Skipping the dashboard's navigation tests: no Chromium at ${CHROMIUM}.`);

/** A promise and the function that resolves it: a test step that waits for another. */
function signal(): { fired: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const fired = new Promise<void>((resolve) => (fire = resolve));
  return { fired, fire };
}

/**
 * Holds, in the browser, the answer to the first request `matches` finds: the emulator answers it at once, the page
 * gets that answer only once `until` has settled. Resolves once the route is in place; `answered` resolves once the
 * emulator has answered (a promise in an object: an async function's returned promise would be waited for).
 */
async function holdFirstAnswer(page: Page, matches: (url: URL) => boolean, until: Promise<void>) {
  const { fired: answered, fire } = signal();
  let held = false;
  await page.route(matches, async (route) => {
    if (held) return route.continue();
    held = true;
    const response = await route.fetch();
    fire();
    await until;
    await route.fulfill({ response });
  });
  return { answered };
}

/** Moving to another page while the one left is still reading (auth off; its own emulator: the test resets it). */
describe.skipIf(!hasChromium)('the dashboard between two pages', () => {
  let emulator: RunningEmulator;
  let browser: Browser;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await emulator?.stop();
  });

  it('a page left before its read answered neither covers the next page nor keeps listening', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(15_000);
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    const isMail = (url: URL | string) => new URL(url).pathname === '/_emu/mail';
    // The mail page's first read is held until the user is on the clock page.
    const { fired: mailAsked, fire: asked } = signal();
    const { fired: released, fire: release } = signal();
    await page.route(isMail, async (route) => {
      asked();
      await released;
      await route.continue();
    });

    await page.goto(`${emulator.url}/_emu/ui/#/mail`);
    await mailAsked;
    await page.getByRole('link', { name: 'Clock and faults' }).click();
    await page.getByRole('heading', { level: 1, name: 'Clock and faults' }).waitFor();
    const mailAnswered = page.waitForEvent('requestfinished', (request) => isMail(request.url()));
    release();
    await mailAnswered;

    // A reset is an event both pages follow with a read: the clock page's, and the left mail page's if it listened.
    const reads: string[] = [];
    page.on('request', (request) => reads.push(new URL(request.url()).pathname));
    const clockRead = page.waitForRequest((request) => new URL(request.url()).pathname === '/_emu/clock');
    expect((await api(emulator)('POST', '/_emu/reset', { body: {} })).status).toBe(204);
    await clockRead;
    // Listeners of one event run in one task: a read of the mail page's would have been asked by now.
    await page.evaluate(() => undefined);
    expect(reads.filter((path) => path === '/_emu/mail')).toEqual([]);
    expect(await page.locator('main h1').allTextContents()).toEqual(['Clock and faults']);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  /** A new page with the DevTools protocol on: `received` resolves once an event `eventName` that `matches` reached it. */
  async function pageFollowingEvents(
    eventName: string,
    matches: (data: Record<string, unknown>) => boolean = () => true,
  ) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(15_000);
    const devtools = await page.context().newCDPSession(page);
    await devtools.send('Network.enable');
    const { fired: received, fire: eventReceived } = signal();
    devtools.on('Network.eventSourceMessageReceived', (message) => {
      if (message.eventName === eventName && matches(JSON.parse(message.data))) eventReceived();
    });
    return { page, received };
  }

  /**
   * A page whose first read of `path` the emulator answers at once, but which gets that answer only after an event
   * `eventName` (whose data `matches`) has reached it. Resolves once the emulator has answered, with the events'
   * stream open.
   */
  async function pageWithReadHeldPastEvent(
    hash: string,
    path: string,
    eventName: string,
    matches: (data: Record<string, unknown>) => boolean = () => true,
  ) {
    const { page, received } = await pageFollowingEvents(eventName, matches);
    const { answered } = await holdFirstAnswer(page, (url) => url.pathname === path, received);
    await page.goto(`${emulator.url}/_emu/ui/${hash}`);
    await page.getByText('events: live').waitFor();
    await answered;
    return page;
  }

  it('a mail sent while the Mail page reads is shown once the read is answered, and once', async () => {
    const page = await pageWithReadHeldPastEvent('#/mail', '/_emu/mail', 'mail');
    const recipient = 'read-race@acme.test';
    const added = await api(emulator)('POST', '/automation/api/v1/notification-types/email/recipients', {
      body: { recipient },
    });
    expect(added.status).toBeLessThan(300);
    await page.getByRole('heading', { level: 1, name: 'Captured mail' }).waitFor();
    const mail = page.getByRole('article').filter({ hasText: recipient });
    await mail.waitFor();
    expect(await mail.count()).toBe(1);
    await page.close();
  });

  it('a clock set while the clock page reads is shown once the read is answered', async () => {
    const page = await pageWithReadHeldPastEvent('#/clock', '/_emu/clock', 'clock');
    const now = '2031-02-03T04:05:06.000Z';
    expect((await api(emulator)('PUT', '/_emu/clock', { body: { now } })).status).toBe(200);
    await page.getByTestId('clock-now').getByText(now, { exact: false }).waitFor();
    expect((await api(emulator)('PUT', '/_emu/clock', { body: { real: true } })).status).toBe(200);
    await page.close();
  });

  it('a device that connects while the Overview reads is counted online once the read is answered', async () => {
    const call = api(emulator);
    const onlineNow = (await call('GET', '/_emu/connections')).body.filter((c: { online: boolean }) => c.online).length;
    const page = await pageWithReadHeldPastEvent(
      '#/',
      '/_emu/connections',
      'connection',
      (c) => c.endpointId === 'meter-003' && c.online === true,
    );
    expect((await call('POST', '/_emu/devices', { body: { endpointId: 'meter-003' } })).status).toBe(201);
    try {
      await page
        .getByTestId('online-count')
        .getByText(String(onlineNow + 1), { exact: true })
        .waitFor();
    } finally {
      await call('DELETE', '/_emu/devices/meter-003');
      await page.close();
    }
  });

  it('a mail sent while the Mail page reads again after a reset is shown once that read is answered', async () => {
    const call = api(emulator);
    const recipient = 'after-reset@acme.test';
    const { page, received } = await pageFollowingEvents('mail', (m) => JSON.stringify(m.to).includes(recipient));
    await page.goto(`${emulator.url}/_emu/ui/#/mail`);
    await page.getByRole('heading', { level: 1, name: 'Captured mail' }).waitFor();
    await page.getByText('events: live').waitFor();
    // The read the reset's state event causes is answered at once (no mail), then held past the mail's event.
    const isMail = (url: URL) => url.pathname === '/_emu/mail';
    const { answered } = await holdFirstAnswer(page, isMail, received);
    const lateAnswer = page.waitForEvent('requestfinished', (request) => isMail(new URL(request.url())));
    expect((await call('POST', '/_emu/reset', { body: {} })).status).toBe(204);
    await answered;
    const added = await call('POST', '/automation/api/v1/notification-types/email/recipients', { body: { recipient } });
    expect(added.status).toBeLessThan(300);
    // Once the page has the read's answer (no mail), the mail must still be there, or come back.
    await lateAnswer;
    await page.evaluate(() => undefined);
    await page.getByRole('article').filter({ hasText: recipient }).waitFor();
    expect(await page.getByRole('article').filter({ hasText: recipient }).count()).toBe(1);
    await page.close();
  });

  it("the clock page's read after a reset does not undo a clock set while it was answered", async () => {
    const call = api(emulator);
    const { page, received } = await pageFollowingEvents('clock', (c) => c.mode === 'frozen');
    await page.goto(`${emulator.url}/_emu/ui/#/clock`);
    await page.getByRole('heading', { level: 1, name: 'Clock and faults' }).waitFor();
    await page.getByText('events: live').waitFor();
    // The read the reset's state event causes is answered at once (the real time), then held past the clock set.
    const isClock = (url: URL) => url.pathname === '/_emu/clock';
    const { answered } = await holdFirstAnswer(page, isClock, received);
    const lateAnswer = page.waitForEvent('requestfinished', (request) => isClock(new URL(request.url())));
    expect((await call('POST', '/_emu/reset', { body: {} })).status).toBe(204);
    await answered;
    const now = '2031-02-03T04:05:06.000Z';
    expect((await call('PUT', '/_emu/clock', { body: { now, frozen: true } })).status).toBe(200);
    try {
      await lateAnswer;
      await page.evaluate(() => undefined);
      expect(await page.getByTestId('clock-now').textContent()).toContain(now);
    } finally {
      expect((await call('PUT', '/_emu/clock', { body: { real: true } })).status).toBe(200);
      await page.close();
    }
  });

  it('a device stopped while the devices page reads is gone once the read is answered', async () => {
    const call = api(emulator);
    expect((await call('POST', '/_emu/devices', { body: { endpointId: 'meter-002' } })).status).toBe(201);
    const page = await pageWithReadHeldPastEvent('#/devices', '/_emu/devices', 'device', (d) => d.change === 'stopped');
    expect((await call('DELETE', '/_emu/devices/meter-002')).status).toBeLessThan(300);
    await page.getByText('No simulated device runs.').waitFor();
    await page.close();
  });

  const LIST = '/epr/api/v1/endpoints';
  const registeredEvent = (data: Record<string, unknown>) => data.change === 'registered';
  const endpointCount = async () => (await api(emulator)('GET', `${LIST}?limit=1`)).body.totalElements as number;

  /** The full reads of the list a page has had answered (not those of single endpoints by id). */
  function listReads(page: Page) {
    const finished: string[] = [];
    page.on('requestfinished', (request) => {
      const url = new URL(request.url());
      if (url.pathname === LIST && !url.searchParams.has('endpointId')) finished.push(url.search);
    });
    return finished;
  }

  it('an endpoint registered while the Endpoints list reads is counted once the read is answered', async () => {
    const before = await endpointCount();
    const page = await pageWithReadHeldPastEvent('#/endpoints', LIST, 'endpoint', registeredEvent);
    const reads = listReads(page);
    await registerEndpoint(emulator);
    const summary = page.getByTestId('endpoints-summary');
    await summary.getByText(`of ${before + 1}`, { exact: false }).waitFor();
    // The held registration may be in the read's count: the list is read once more rather than counted again.
    await expect.poll(() => reads.length).toBe(2);
    expect(await summary.textContent()).toMatch(new RegExp(`of ${before + 1}$`));
    await page.close();
  });

  it('an endpoint registered before the Endpoints list is read, whose event comes during the read, is counted once', async () => {
    const before = await endpointCount();
    const { page, received: event } = await pageFollowingEvents('endpoint', registeredEvent);
    // The list's first read is held in the browser, not yet asked of the emulator, until the event has come.
    const { fired: readAsked, fire: asked } = signal();
    await page.route(
      (url) => url.pathname === LIST,
      async (route) => {
        asked();
        await event;
        await route.continue();
      },
    );
    const reads = listReads(page);
    await page.goto(`${emulator.url}/_emu/ui/#/endpoints`);
    await page.getByText('events: live').waitFor();
    await readAsked;
    await registerEndpoint(emulator);
    const summary = page.getByTestId('endpoints-summary');
    await summary.getByText(`of ${before + 1}`, { exact: false }).waitFor();
    await expect.poll(() => reads.length).toBe(2);
    // A count the event added after the read would show once the next frame has drawn.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
    expect(await summary.textContent()).toMatch(new RegExp(`of ${before + 1}$`));
    await page.close();
  });

  it('an endpoint registered just before the list is read again is shown once, not also by its own read', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(15_000);
    await page.goto(`${emulator.url}/_emu/ui/#/endpoints`);
    await page.getByText('events: live').waitFor();
    const summary = page.getByTestId('endpoints-summary');
    await summary.getByText(/^Endpoints 1–\d+ of \d+$/).waitFor();
    // The page reads a registered endpoint by id to add its row: that read is answered, then held.
    const byId = (url: URL) => url.pathname === LIST && url.searchParams.has('endpointId');
    const { fired: released, fire: release } = signal();
    const { answered } = await holdFirstAnswer(page, byId, released);
    const reads = listReads(page);
    const { endpointId } = await registerEndpoint(emulator);
    await answered;
    // Meanwhile the user searches again: the list read anew has the endpoint.
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => reads.length).toBe(1);
    // After the row's read, the page reads its connection state, then adds the row or not.
    const rowConnectionRead = page.waitForEvent('requestfinished', (request) => {
      const url = new URL(request.url());
      return url.pathname === '/_emu/connections' && url.searchParams.get('endpointId') === endpointId;
    });
    release();
    await rowConnectionRead;
    await page.evaluate(() => undefined);
    expect(await page.getByRole('link', { name: endpointId, exact: true }).count()).toBe(1);
    await page.close();
  });

  it("a command invoked while the Endpoint page reads its history is listed, not undone by that read's answer", async () => {
    const HISTORY = '/cex/api/v1/endpoints/commands';
    let commandId = '';
    const { page, received } = await pageFollowingEvents('command', (c) => c.commandId === commandId);
    const asked: string[] = [];
    const finished: string[] = [];
    const isHistory = (url: string) => new URL(url).pathname.startsWith(HISTORY);
    page.on('request', (request) => isHistory(request.url()) && asked.push(request.url()));
    page.on('requestfinished', (request) => isHistory(request.url()) && finished.push(request.url()));
    // The first read of the history (the application's commands) is answered at once, then held in the browser.
    const { fired: released, fire: release } = signal();
    const { answered: firstAnswered } = await holdFirstAnswer(
      page,
      (url) => url.pathname.startsWith(`${HISTORY}/`),
      released,
    );
    await page.goto(`${emulator.url}/_emu/ui/#/endpoints/meter-001`);
    await page.getByText('events: live').waitFor();
    await firstAnswered;
    const invoked = await api(emulator)('POST', '/cex/api/v1/endpoints/meter-001/commands/reboot?waitTimeout=0', {
      body: {},
    });
    expect(invoked.status).toBe(202);
    commandId = invoked.body.commandId;
    await received;
    // A read the event caused at once (during the first one) is let end before the first read's answer is released.
    await page.evaluate(() => undefined);
    if (asked.length > 1) await expect.poll(() => finished.length).toBe(1);
    release();
    // Two reads of the history end: the first, and one caused by the command's event (during the first, or after).
    await expect.poll(() => finished.length).toBe(2);
    await page.evaluate(() => undefined);
    await page.getByRole('cell', { name: commandId, exact: true }).waitFor();
    await page.close();
  });

  it('the command invoked on the Endpoint page shows its last state, whichever read of it answers last', async () => {
    const call = api(emulator);
    // The simulated device answers after a second: the page reads the command while it is still pending.
    const rules = { commands: { reboot: { payload: { rebooted: true }, delayMs: 1000 } } };
    expect((await call('POST', '/_emu/devices', { body: { endpointId: 'meter-001', rules } })).status).toBe(201);
    try {
      const { page, received } = await pageFollowingEvents('command', (c) => c.status === 'EXECUTED');
      const isCommand = (url: URL) =>
        /^\/cex\/api\/v1\/endpoints\/meter-001\/commands\/reboot\/[^/]+$/.test(url.pathname);
      const reads: string[] = [];
      page.on('requestfinished', (request) => isCommand(new URL(request.url())) && reads.push(request.url()));
      // The page's first read of the command is answered at once (pending), then held in the browser.
      const { fired: released, fire: release } = signal();
      const { answered: firstAnswered } = await holdFirstAnswer(page, isCommand, released);
      await page.goto(`${emulator.url}/_emu/ui/#/endpoints/meter-001`);
      await page.getByRole('heading', { level: 1, name: 'Endpoint meter-001' }).waitFor();
      await page.getByRole('button', { name: 'Invoke' }).click();
      await firstAnswered;
      await received;
      const status = page.getByTestId('command-status');
      await status.getByText('executed', { exact: true }).waitFor();
      release();
      await expect.poll(() => reads.length).toBe(2);
      await page.evaluate(() => undefined);
      expect(await status.textContent()).toBe('executed');
      await page.close();
    } finally {
      await call('DELETE', '/_emu/devices/meter-001');
    }
  });

  it("the journal shows the last filter's entries when an earlier filter's read answers after it", async () => {
    const call = api(emulator);
    expect((await call('GET', '/epr/api/v1/endpoints/meter-001')).status).toBe(200);
    expect((await call('GET', '/tenant-manager/api/v1/tenants')).status).toBe(200);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(15_000);
    const isRead = (prefix: string) => (url: URL) =>
      url.pathname === '/_emu/requests' && url.searchParams.get('path') === prefix;
    const { fired: released, fire: release } = signal();
    const { answered: firstAnswered } = await holdFirstAnswer(page, isRead('/epr'), released);
    await page.goto(`${emulator.url}/_emu/ui/#/journal`);
    await page.getByRole('heading', { level: 1, name: 'Request journal' }).waitFor();
    const prefix = page.getByLabel('Path or topic prefix');
    await prefix.fill('/epr');
    await page.getByRole('button', { name: 'Filter' }).click();
    await firstAnswered;
    await prefix.fill('/tenant-manager');
    await page.getByRole('button', { name: 'Filter' }).click();
    const rows = page.locator('tbody tr.journal-row');
    await rows.filter({ hasText: '/tenant-manager/api/v1/tenants' }).first().waitFor();
    const lateAnswer = page.waitForEvent('requestfinished', (request) => isRead('/epr')(new URL(request.url())));
    release();
    await lateAnswer;
    await page.evaluate(() => undefined);
    expect(await rows.filter({ hasText: '/epr/' }).count()).toBe(0);
    expect(await rows.filter({ hasText: '/tenant-manager/' }).count()).toBeGreaterThan(0);
    await page.close();
  });

  it('"Skip to content" moves the focus to the page shown and leaves the page where it is', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(15_000);
    await page.goto(`${emulator.url}/_emu/ui/#/clock`);
    await page.getByRole('heading', { level: 1, name: 'Clock and faults' }).waitFor();
    await page.getByRole('link', { name: 'Skip to content' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('main');
    expect(new URL(page.url()).hash).toBe('#/clock');
    expect(await page.locator('main h1').allTextContents()).toEqual(['Clock and faults']);
    await page.close();
  });
});
