import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';
import { hasChromium, launchBrowser } from './browser.js';

/**
 * The platform's own web-dashboard tutorial (its index.html, index.js, keycloak.js of its time and keycloak.json),
 * which is not ours to ship: the test runs it when PLATFORM_EMU_TUTORIAL_DIR names a directory holding those files
 * (`doc/Tutorials/getting-started/build-iot-dashboard/attach/code` of the platform's repository). Only the platform
 * URL, the realm and the client are set, as the tutorial tells its reader to. test/ui/keycloak-js.test.ts does the
 * same with a current keycloak-js, always.
 */
const TUTORIAL = process.env.PLATFORM_EMU_TUTORIAL_DIR;
const FILES = ['index.html', 'index.js', 'keycloak.js', 'keycloak.json', 'style.css'];
const present = TUTORIAL !== undefined && FILES.every((file) => existsSync(join(TUTORIAL, file)));
if (!present)
  console.warn(
    "Skipping the platform's web-dashboard tutorial: PLATFORM_EMU_TUTORIAL_DIR does not name a directory with " +
      FILES.join(', '),
  );

async function serve(files: Map<string, string>): Promise<{ url: string; server: Server }> {
  const types: Record<string, string> = {
    html: 'text/html',
    js: 'text/javascript',
    json: 'application/json',
    css: 'text/css',
  };
  const server = createServer((req, res) => {
    const name = new URL(req.url ?? '/', 'http://x').pathname.slice(1) || 'index.html';
    const body = files.get(name);
    if (body === undefined) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': types[name.split('.').pop()!] ?? 'text/plain' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe.skipIf(!hasChromium || !present)(
  "the platform's web-dashboard tutorial, its own files, in Chromium",
  async () => {
    // A skipped suite is still collected: read nothing that is not there.
    if (!hasChromium || !present) return;
    const emulator = await startTestEmulator({ auth: 'on' });
    const files = new Map<string, string>();
    for (const file of FILES) files.set(file, await readFile(join(TUTORIAL!, file), 'utf8'));
    files.set(
      'index.js',
      files
        .get('index.js')!
        .replace(/const baseKaaPlatformUrl = '[^']*'/, `const baseKaaPlatformUrl = '${emulator.url}'`),
    );
    const config = JSON.parse(files.get('keycloak.json')!);
    files.set(
      'keycloak.json',
      JSON.stringify({
        ...config,
        realm: 'acme',
        'auth-server-url': `${emulator.url}/auth`,
        resource: 'acme-frontend',
      }),
    );
    const app = await serve(files);
    let browser: Browser | undefined;
    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => app.server.close(resolve));
    });

    it('signs in as a fixture user, lists endpoints with their metadata, and saves a location', async () => {
      browser = await launchBrowser();
      const page = await browser.newPage();
      await page.goto(`${app.url}/index.html`);
      await page.waitForURL(/\/auth\/realms\/acme\/protocol\/openid-connect\/auth\?/);
      await page.fill('#username', 'dev@acme.test');
      await page.fill('#password', 'dev-password');
      await page.click('button[type=submit]');
      await page.waitForSelector('tr.endpoint');
      expect(await page.locator('.endpointId').allTextContents()).toContain('meter-001');

      // The tutorial saves with PUT /epr/api/v1/endpoints/{id}/metadata/location (issue 28, REST half): 404 until
      // merged.
      const row = page.locator('tr.endpoint', { hasText: 'meter-001' });
      await row.locator('input.location').fill('Lviv, roof');
      const saved = page.waitForResponse(
        (r) => r.request().method() === 'PUT' && r.url().includes('/meter-001/metadata/location'),
      );
      await page.click('#save-button button');
      expect((await saved).status()).toBe(200);
      const endpoint = await api(emulator)('GET', '/epr/api/v1/endpoints/meter-001?include=metadata', {
        token: await tokenFor(emulator),
      });
      expect(endpoint.body.metadata.location).toBe('Lviv, roof');
    });
  },
);
