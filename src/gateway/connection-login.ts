import type { EmuContext } from '../context.js';
import { loginOf, presentLogin, type PresentedLogin } from './credential-login.js';
import { sessionsOf } from './sessions.js';

/** How the connection that speaks for an endpoint now logged in (TLS, credential); undefined while it is offline. */
export function connectionLogin(ctx: EmuContext, endpointId: string): PresentedLogin | undefined {
  const client = sessionsOf(ctx).byEndpoint.get(endpointId)?.client;
  const login = client && !client.closed ? loginOf(client) : undefined;
  return login && presentLogin(login);
}
