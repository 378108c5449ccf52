import type { Request, Response } from 'express';
import { runtimeOf } from '../context.js';
import type { Route } from '../contract.js';
import { originPolicy } from '../server/cross-origin.js';
import { findRealmClient, type Tenant } from '../services/tenant-manager/tenants.js';
import { param } from './authorize.js';
import { emailOf, realmTokenClaims } from './issue.js';
import { OAUTH_BODY_LIMIT, OAuthError, realmOf } from './oauth.js';
import { redirectAllowed } from './redirects.js';
import { endSession, SESSION_COOKIE } from './sessions.js';

const OIDC = '/realms/{realm}/protocol/openid-connect';

/** A token's claims if it was signed by the emulator, is valid now, of this realm and of the wanted kind. */
function claimsOf(req: Request, tenant: Tenant, token: string, typ: string): Record<string, unknown> | undefined {
  try {
    const claims = realmTokenClaims(req, tenant, token);
    return claims.typ === typ ? claims : undefined;
  } catch {
    return undefined;
  }
}

function userinfo(req: Request, res: Response): void {
  const tenant = realmOf(req);
  const token = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  const claims = token === undefined ? undefined : claimsOf(req, tenant, token, 'Bearer');
  if (!claims || claims.tenant_id !== tenant.id) {
    res.set('WWW-Authenticate', 'Bearer error="invalid_token"');
    throw new OAuthError(
      401,
      'invalid_token',
      'userinfo needs "Authorization: Bearer <access token>" of this realm, valid now.',
    );
  }
  const username = typeof claims.preferred_username === 'string' ? claims.preferred_username : undefined;
  res.set('Cache-Control', 'no-store').json({
    sub: claims.sub,
    ...(username ? { preferred_username: username } : {}),
    ...(emailOf(username) ? { email: username } : {}),
    tenant_id: tenant.id,
  });
}

/**
 * Ends the browser's sign-in session (its cookie, the `sid` of `id_token_hint`, or the session of a `refresh_token`):
 * its refresh tokens stop working. Then back to `post_logout_redirect_uri` (checked like a redirect_uri), or a page.
 */
function logout(req: Request, res: Response): void {
  const tenant = realmOf(req);
  const source = (req.method === 'POST' ? req.body : req.query) as Record<string, unknown>;
  const hint = param(source, 'id_token_hint') ?? param(source, 'refresh_token');
  const hinted =
    hint === undefined ? undefined : (claimsOf(req, tenant, hint, 'ID') ?? claimsOf(req, tenant, hint, 'Refresh'));
  const target = param(source, 'post_logout_redirect_uri') ?? param(source, 'redirect_uri');
  let redirect: URL | undefined;
  if (target !== undefined) {
    try {
      redirect = new URL(target);
    } catch {
      throw new OAuthError(400, 'invalid_request', 'post_logout_redirect_uri must be an absolute http or https URL.');
    }
    if ((redirect.protocol !== 'http:' && redirect.protocol !== 'https:') || !redirectAllowed(req, req.ctx, redirect)) {
      throw new OAuthError(
        400,
        'invalid_request',
        `post_logout_redirect_uri must be on this machine, on ${req.hostname}, or on a host named by --allow-host.`,
      );
    }
  }
  endSession(req, res, tenant, typeof hinted?.sid === 'string' ? hinted.sid : undefined);
  res.set('Cache-Control', 'no-store');
  if (!redirect) {
    res
      .type('html')
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Signed ` +
          `out</title></head><body><main><h1>You are signed out of ` +
          `${tenant.realm_name.replace(/[&<>"']/g, '')}.</h1></main></body></html>\n`,
      );
    return;
  }
  const state = param(source, 'state');
  if (state !== undefined) redirect.searchParams.set('state', state);
  res.redirect(302, redirect.href);
}

const page = (title: string, script: string) =>
  `<!doctype html><html lang="en"><head><meta ` +
  `charset="utf-8"><title>${title}</title></head><body><script>${script}</script></body></html>\n`;

/**
 * The login-status iframe keycloak-js polls: the app posts `<client_id> <sid>`; the answer is `unchanged` while the
 * browser's session at the realm is that one, `changed` once it signed out (or another user signed in), `error`
 * when the app's origin or client is not accepted (`.../init`).
 */
const LOGIN_STATUS = page(
  'login status',
  `var ready = {};
function session() { var m = ('; ' + document.cookie).split('; ${SESSION_COOKIE}=')[1]; return m ? ` +
    `m.split(';')[0] : ''; }
window.addEventListener('message', function (event) {
  if (typeof event.data !== 'string') return;
  var parts = event.data.split(' ');
  if (parts.length !== 2) return;
  var origin = event.origin, source = event.source, key = origin + ' ' + parts[0];
  function answer() { source.postMessage(parts[1] !== '' && parts[1] === session() ? 'unchanged' : 'changed', ` +
    `origin); }
  if (ready[key]) return answer();
  fetch(location.pathname + '/init?client_id=' + encodeURIComponent(parts[0]) + '&origin=' + ` +
    `encodeURIComponent(origin))
    .then(function (r) { if (r.status === 204) { ready[key] = true; answer(); } else source.postMessage('error', ` +
    `origin); }, function () { source.postMessage('error', origin); });
});`,
);

/** Third-party cookie check, step 1: set a cookie (the same kind the session's is), then step 2 reads it. */
const STEP1 = page(
  'third-party cookies',
  `document.cookie = 'PLATFORM_EMU_3P_CHECK=supported; Max-Age=60; SameSite=Lax'; location.replace('step2.html');`,
);
const STEP2 = page(
  'third-party cookies',
  `var supported = document.cookie.indexOf('PLATFORM_EMU_3P_CHECK=supported') !== -1;
document.cookie = 'PLATFORM_EMU_3P_CHECK=; Max-Age=0';
parent.postMessage(supported ? 'supported' : 'unsupported', '*');`,
);

const htmlRoute = (path: string, html: string, summary: string): Route => ({
  method: 'GET',
  path: `${OIDC}/${path}`,
  scope: null,
  summary,
  handler: (req, res) => {
    realmOf(req);
    res.set('Cache-Control', 'no-cache').type('html').send(html);
  },
});

/** The endpoints a signed-in single-page app calls besides the code flow and the token endpoint. */
export const sessionRoutes: Route[] = [
  {
    method: 'GET',
    path: `${OIDC}/userinfo`,
    scope: null,
    summary: 'The signed-in user (a bearer access token)',
    handler: userinfo,
  },
  {
    method: 'POST',
    path: `${OIDC}/userinfo`,
    scope: null,
    summary: 'The signed-in user (a bearer access token)',
    body: 'form',
    bodyLimit: OAUTH_BODY_LIMIT,
    handler: userinfo,
  },
  {
    method: 'GET',
    path: `${OIDC}/logout`,
    scope: null,
    summary: "End the browser's sign-in session (end-session endpoint)",
    handler: logout,
  },
  {
    method: 'POST',
    path: `${OIDC}/logout`,
    scope: null,
    summary: "End the browser's sign-in session (end-session endpoint)",
    body: 'form',
    bodyLimit: OAUTH_BODY_LIMIT,
    handler: logout,
  },
  htmlRoute('login-status-iframe.html', LOGIN_STATUS, 'The login-status iframe (OpenID Connect session management)'),
  {
    method: 'GET',
    path: `${OIDC}/login-status-iframe.html/init`,
    scope: null,
    summary: 'Whether the login-status iframe answers this client and origin: 204, or 403',
    handler: (req, res) => {
      const tenant = realmOf(req);
      const clientId = param(req.query as Record<string, unknown>, 'client_id');
      const origin = param(req.query as Record<string, unknown>, 'origin');
      const policy = runtimeOf(req.ctx, 'oidc:origin-policy', () => originPolicy(req.ctx.config));
      const knownClient =
        clientId !== undefined &&
        (clientId === tenant.client_frontend_id || findRealmClient(req.ctx, tenant.id, clientId) !== undefined);
      if (!knownClient || origin === undefined || !policy(origin, req.headers.host)) {
        throw new OAuthError(
          403,
          'access_denied',
          'Unknown client_id, or an origin that is neither on this machine nor named with --allow-origin.',
        );
      }
      res.status(204).end();
    },
  },
  htmlRoute('3p-cookies/step1.html', STEP1, 'Third-party cookie check, step 1'),
  htmlRoute('3p-cookies/step2.html', STEP2, 'Third-party cookie check, step 2'),
];
