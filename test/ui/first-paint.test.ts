import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { loadUiAssets } from '../../src/ui/assets.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { hasChromium, CHROMIUM, launchBrowser } from './browser.js';

const STYLE = readFileSync(new URL('../../ui/style.css', import.meta.url), 'utf8');
const HEADER_BACKGROUND = 'rgb(19, 34, 56)'; // style.css: header { background: #132238 }

/** Figure 12b: the dashboard's first paint waits for the page alone (docs/performance.md, docs/ui.md). */
describe('the first paint waits for the page alone', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('index.html carries its stylesheet, and the CSP lets exactly that stylesheet apply', async () => {
    const page = await fetch(`${emulator.url}/_emu/ui/`);
    const html = await page.text();
    expect(html).not.toMatch(/rel="stylesheet"/);
    expect([...html.matchAll(/<style>([^]*?)<\/style>/g)].map((m) => m[1])).toEqual([STYLE]);
    const csp = page.headers.get('content-security-policy') ?? '';
    const hash = createHash('sha256').update(STYLE).digest('base64');
    expect(csp.split('; ')).toContain(`style-src 'self' 'sha256-${hash}'`);
    expect(csp).not.toContain('unsafe-inline');
    // Not served beside the page as well: what a first visit downloads (12a) counts it once.
    const { hash: version, files } = loadUiAssets();
    expect(files.has('style.css')).toBe(false);
    expect((await call('GET', `/_emu/ui/assets/${version}/style.css`)).status).toBe(404);
  });
});

if (!hasChromium) console.warn(`Skipping the dashboard's first-paint browser test: no Chromium at ${CHROMIUM}.`);

describe.skipIf(!hasChromium)('the first paint in the browser', async () => {
  const url = `${(await startTestEmulator()).url}/_emu/ui/`;
  let browser: Browser;
  let page: Page;
  const violations: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(15_000);
    page.on('console', (m) => m.text().includes('Content Security Policy') && violations.push(m.text()));
  }, 60_000);
  afterAll(() => browser?.close());

  it('is styled at its first paint with no stylesheet fetched, under the CSP; an injected <style> does not apply', async () => {
    await page.goto(url);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const seen = await page.evaluate(() => ({
      painted: performance.getEntriesByName('first-contentful-paint').length,
      stylesheets: performance
        .getEntriesByType('resource')
        .map((e) => e.name)
        .filter((name) => /\.css(\?|$)/.test(name)),
      header: getComputedStyle(document.querySelector('header')!).backgroundColor,
    }));
    expect(seen).toEqual({ painted: 1, stylesheets: [], header: HEADER_BACKGROUND });
    expect(violations).toEqual([]);

    const refused = page.waitForEvent('console', (m) => m.text().includes('Content Security Policy'));
    const injected = await page.evaluate(() => {
      const style = document.createElement('style');
      style.textContent = 'header { background: rgb(255, 0, 0) }';
      document.head.append(style);
      return getComputedStyle(document.querySelector('header')!).backgroundColor;
    });
    expect(injected).toBe(HEADER_BACKGROUND);
    expect((await refused).text()).toContain('style-src');
  });
});
