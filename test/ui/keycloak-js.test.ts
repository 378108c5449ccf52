import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';
import { hasChromium, launchBrowser, screenshot } from './browser.js';

/**
 * The tutorial's index.js, with only the platform URL, realm and client set, on a current keycloak-js (an ES module).
 */
const appScript = (platform: string) =>
  `import Keycloak from './keycloak.js';
const baseKaaPlatformUrl = ${JSON.stringify(platform)};
const keycloak = new Keycloak({ url: baseKaaPlatformUrl + '/auth', realm: 'acme', clientId: 'acme-frontend' });
window.keycloak = keycloak;
keycloak.init({ onLoad: 'login-required', responseMode: 'fragment' }).then(() => renderApp(keycloak), () => ` +
  `renderError('Failed to initialize Keycloak client'));

function request(method, url, body) {
  return new Promise((resolve) => {
    const req = new XMLHttpRequest();
    req.open(method, url, true);
    req.setRequestHeader('Accept', 'application/json');
    if (body !== undefined) req.setRequestHeader('Content-Type', 'application/json');
    req.setRequestHeader('Authorization', 'bearer ' + keycloak.token);
    req.onreadystatechange = () => { if (req.readyState === 4) resolve(req); };
    req.send(body === undefined ? null : JSON.stringify(body));
  });
}

async function renderApp() {
  const req = await request('GET', baseKaaPlatformUrl + '/epr/api/v1/endpoints?include=metadata');
  if (req.status !== 200) return renderError("Failed to retrieve endpoints' metadata: " + req.status);
  const rows = JSON.parse(req.responseText).content.map((e) => {
    const tr = document.createElement('tr');
    tr.className = 'endpoint';
    tr.dataset.appVersion = e.appVersion.name;
    for (const text of [e.endpointId, e.appVersion.name]) ` +
  `tr.appendChild(document.createElement('td')).textContent = text;
    const input = tr.appendChild(document.createElement('td')).appendChild(document.createElement('input'));
    input.className = 'location';
    input.setAttribute('aria-label', 'Location of ' + e.endpointId);
    input.value = (e.metadata && e.metadata.location) || '';
    tr.firstChild.className = 'endpointId';
    return tr;
  });
  document.getElementById('table').replaceChildren(...rows);
  const button = document.createElement('button');
  button.textContent = 'Save changes';
  button.onclick = saveEndpointLocation;
  document.getElementById('save-button').replaceChildren(button);
}

async function saveEndpointLocation() {
  const statuses = [];
  for (const row of document.getElementsByClassName('endpoint')) {
    const endpointId = row.getElementsByClassName('endpointId')[0].textContent;
    const location = row.getElementsByClassName('location')[0].value;
    // As the platform's web-dashboard tutorial saves it.
    const req = await request('PUT', baseKaaPlatformUrl + '/epr/api/v1/endpoints/' + endpointId + ` +
  `'/metadata/location', location);
    statuses.push(req.status);
  }
  document.body.dataset.saved = statuses.join(',');
}

function renderError(message) {
  const p = document.createElement('p');
  p.id = 'error';
  p.textContent = message;
  document.getElementById('container').replaceChildren(p);
}
`;

const INDEX =
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>My endpoints</title></head>
<body><main id="container"><table><caption>My endpoints</caption>
<thead><tr><th>Endpoint ID</th><th>Application version</th><th>Location</th></tr></thead><tbody ` +
  `id="table"></tbody></table></main>
<p id="save-button"></p>
<script type="module" src="index.js"></script></body></html>
`;

/** The tutorial's files, served from a local origin of their own (as `npx serve` would). */
async function serveApp(
  files: Record<string, { type: string; body: string }>,
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const file = files[new URL(req.url ?? '/', 'http://x').pathname];
    if (!file) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file.type }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe.skipIf(!hasChromium)("the platform's web-dashboard tutorial on keycloak-js, in Chromium", async () => {
  const emulator = await startTestEmulator({ auth: 'on' });
  const keycloakJs = await readFile(createRequire(import.meta.url).resolve('keycloak-js'), 'utf8');
  const app = await serveApp({
    '/': { type: 'text/html', body: INDEX },
    '/index.js': { type: 'text/javascript', body: appScript(emulator.url) },
    '/keycloak.js': { type: 'text/javascript', body: keycloakJs },
    '/signed-out': { type: 'text/html', body: '<!doctype html><title>signed out</title><p>Signed out</p>' },
  });
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => app.server.close(resolve));
  });

  it(
    'signs in as a fixture user, lists endpoints with metadata, saves a location, refreshes, and signs ' + 'out',
    async () => {
      browser = await launchBrowser();
      const page = await browser.newPage();
      const failures: string[] = [];
      page.on('pageerror', (error) => failures.push(error.message));
      await page.goto(`${app.url}/`);
      // keycloak-js sends the browser to the realm's login page (onLoad: login-required).
      await page.waitForURL(/\/auth\/realms\/acme\/protocol\/openid-connect\/auth\?/);
      const login = new URL(page.url());
      expect(login.searchParams.get('response_mode')).toBe('fragment');
      expect(login.searchParams.get('nonce')).toBeTruthy();
      expect(login.searchParams.get('scope')).toBe('openid');
      await page.fill('#username', 'dev@acme.test');
      await page.fill('#password', 'dev-password');
      await page.click('button[type=submit]');

      await page.waitForSelector('tr.endpoint');
      expect(page.url().startsWith(`${app.url}/`)).toBe(true);
      expect(await page.locator('.endpointId').allTextContents()).toContain('meter-001');
      const signedIn = await page.evaluate(() => {
        const kc = (window as any).keycloak;
        return {
          username: kc.tokenParsed.preferred_username,
          nonce: kc.idTokenParsed.nonce,
          scope: kc.tokenParsed.scope,
          sid: kc.sessionId,
        };
      });
      expect(signedIn.username).toBe('dev@acme.test');
      expect(signedIn.nonce).toBeTruthy();
      expect(signedIn.scope.split(' ')).toEqual(expect.arrayContaining(['endpoint:read', 'endpoint:update', 'openid']));

      await page.fill('[aria-label="Location of meter-001"]', 'Kyiv, server room 2');
      await page.click('text=Save changes');
      await page.waitForSelector('body[data-saved]');
      const statuses = (await page.getAttribute('body', 'data-saved'))!.split(',');
      expect(
        statuses.every((s) => s === '200'),
        statuses.join(','),
      ).toBe(true);
      const saved = await api(emulator)('GET', '/epr/api/v1/endpoints/meter-001?include=metadata', {
        token: await tokenFor(emulator),
      });
      expect(saved.body.metadata.location).toBe('Kyiv, server room 2');
      await screenshot(page, 'keycloak-js-dashboard');

      // userinfo (a CORS request with Authorization), the refresh_token grant, and the login-status iframe.
      expect(await page.evaluate(async () => (await (window as any).keycloak.loadUserInfo()).preferred_username)).toBe(
        'dev@acme.test',
      );
      const before = await page.evaluate(() => (window as any).keycloak.refreshToken as string);
      expect(await page.evaluate(() => (window as any).keycloak.updateToken(-1))).toBe(true);
      const status = await page.evaluate(
        ({ origin }) =>
          new Promise<string>((resolve) => {
            const kc = (window as any).keycloak;
            const frame = document.querySelector<HTMLIFrameElement>('iframe[title="keycloak-session-iframe"]');
            if (!frame) return resolve('no iframe');
            window.addEventListener(
              'message',
              (event) => event.source === frame.contentWindow && resolve(String(event.data)),
            );
            frame.contentWindow!.postMessage(`acme-frontend ${kc.sessionId}`, origin);
          }),
        { origin: emulator.url },
      );
      expect(status).toBe('unchanged');

      await page.evaluate(
        (target) => (window as any).keycloak.logout({ redirectUri: target }),
        `${app.url}/signed-out`,
      );
      await page.waitForURL(`${app.url}/signed-out`);
      const refresh = await api(emulator)('POST', '/auth/realms/acme/protocol/openid-connect/token', {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        rawBody: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: before,
          client_id: 'acme-frontend',
        }).toString(),
      });
      expect(refresh.status).toBe(400);
      expect(refresh.body.error).toBe('invalid_grant');
      expect(failures).toEqual([]);
    },
  );
});
