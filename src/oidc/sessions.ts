import { randomBytes, randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { runtimeOf, type EmuContext } from '../context.js';
import { realmPath } from '../auth/tokens.js';
import { STATE_REPLACED } from '../server/events.js';
import type { Tenant } from '../services/tenant-manager/tenants.js';
import type { Grantee } from './oauth.js';

/** A user's sign-in at a realm (Keycloak's SSO session): what the login-status iframe and logout speak about. */
export interface SignInSession {
  /** Public: `sid` and `session_state` in tokens, the login-status cookie. */
  id: string;
  tenantId: string;
  grantee: Grantee;
  /** Emulator clock, seconds. */
  authTime: number;
}

/** HttpOnly: the secret that signs the browser in again without the form. */
const IDENTITY_COOKIE = 'PLATFORM_EMU_IDENTITY';
/** Readable by the login-status iframe: the session's public id, compared with the app's `sid`. */
export const SESSION_COOKIE = 'PLATFORM_EMU_SESSION';
const SESSION_LIMIT = 10_000;

/** Sessions live in memory only, like codes: a restart signs everyone out (their refresh tokens stop working). */
const sessionsOf = (ctx: EmuContext) =>
  runtimeOf(ctx, 'oidc:sessions', () => {
    const sessions = { bySecret: new Map<string, SignInSession>(), byId: new Map<string, string>() };
    ctx.events.on(STATE_REPLACED, () => {
      sessions.bySecret.clear();
      sessions.byId.clear();
    });
    return sessions;
  });

function cookieOf(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';', 64)) {
    const at = part.indexOf('=');
    if (at !== -1 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

const cookiePath = (tenant: Tenant) => `${realmPath(tenant.realm_name)}/`;

export function startSession(ctx: EmuContext, res: Response, tenant: Tenant, grantee: Grantee): SignInSession {
  const sessions = sessionsOf(ctx);
  if (sessions.bySecret.size >= SESSION_LIMIT) {
    const oldest = sessions.bySecret.keys().next().value!;
    sessions.byId.delete(sessions.bySecret.get(oldest)!.id);
    sessions.bySecret.delete(oldest);
  }
  const secret = randomBytes(32).toString('base64url');
  const session: SignInSession = {
    id: randomUUID(),
    tenantId: tenant.id,
    grantee,
    authTime: Math.floor(ctx.clock.nowMs() / 1000),
  };
  sessions.bySecret.set(secret, session);
  sessions.byId.set(session.id, secret);
  const options = { path: cookiePath(tenant), sameSite: 'lax' as const };
  res.cookie(IDENTITY_COOKIE, secret, { ...options, httpOnly: true });
  res.cookie(SESSION_COOKIE, session.id, options);
  return session;
}

/** The browser's session at this realm, if it has one. */
export function currentSession(req: Request, tenant: Tenant): SignInSession | undefined {
  const secret = cookieOf(req, IDENTITY_COOKIE);
  const session = secret === undefined ? undefined : sessionsOf(req.ctx).bySecret.get(secret);
  return session?.tenantId === tenant.id ? session : undefined;
}

export function isSessionActive(ctx: EmuContext, id: string): boolean {
  return sessionsOf(ctx).byId.has(id);
}

/** Ends a session by its id (from a token) and/or the browser's cookie; clears the cookies. */
export function endSession(req: Request, res: Response, tenant: Tenant, id: string | undefined): void {
  const sessions = sessionsOf(req.ctx);
  const secrets = [cookieOf(req, IDENTITY_COOKIE), id === undefined ? undefined : sessions.byId.get(id)];
  for (const secret of secrets) {
    const session = secret === undefined ? undefined : sessions.bySecret.get(secret);
    if (!session || session.tenantId !== tenant.id) continue;
    sessions.bySecret.delete(secret!);
    sessions.byId.delete(session.id);
  }
  res.clearCookie(IDENTITY_COOKIE, { path: cookiePath(tenant) });
  res.clearCookie(SESSION_COOKIE, { path: cookiePath(tenant) });
}
