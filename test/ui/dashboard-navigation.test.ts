import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { api, startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/index.js';
import { hasChromium, CHROMIUM, launchBrowser } from './browser.js';

if (!hasChromium) console.warn(`Skipping the dashboard's navigation tests: no Chromium at ${CHROMIUM}.`);

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
    let asked!: () => void;
    const mailAsked = new Promise<void>((resolve) => (asked = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
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
