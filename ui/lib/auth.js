import { adminToken, api, userToken } from './api.js';

/**
 * What the dashboard may do: everything with auth off; with auth on, the user's scopes, and the control plane with the
 * admin token.
 */
export function permissions(health) {
  const claims = claimsOf(userToken.get());
  const scopes = new Set(claims?.scope?.split(' ') ?? []);
  return {
    authOn: health.auth === 'on',
    user: claims?.preferred_username,
    /** The signed-in user's tenant, for control-plane lists that name one (undefined: the default tenant). */
    tenant: claims?.tenant_id,
    can: (scope) =>
      health.auth !== 'on' || (scope === 'emulator:admin' ? adminToken.get() !== undefined : scopes.has(scope)),
  };
}

function claimsOf(token) {
  try {
    return JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
  } catch {
    return undefined;
  }
}

const base64url = (bytes) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const random = () => base64url(crypto.getRandomValues(new Uint8Array(32)));
const redirectUri = () => `${location.origin}/_emu/ui/`;
const PENDING = 'platform-emu-ui-pkce';

/** Off to the realm's login page: the authorization code flow with PKCE, for the realm's public frontend client. */
export async function beginSignIn(realm) {
  const verifier = random();
  const state = random();
  const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state, realm, hash: location.hash }));
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: `${realm}-frontend`,
    redirect_uri: redirectUri(),
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  location.assign(`/auth/realms/${encodeURIComponent(realm)}/protocol/openid-connect/auth?${query}`);
}

/** Back from the login page with `?code=&state=`: the code exchanged for the user's token. */
export async function finishSignIn() {
  const params = new URLSearchParams(location.search);
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null');
  if (!params.has('code') || !pending) return;
  sessionStorage.removeItem(PENDING);
  history.replaceState(null, '', `/_emu/ui/${pending.hash ?? ''}`);
  if (params.get('state') !== pending.state)
    throw new Error('The sign-in came back with another state: start it again.');
  const answer = await api('POST', `/auth/realms/${encodeURIComponent(pending.realm)}/protocol/openid-connect/token`, {
    form: {
      grant_type: 'authorization_code',
      code: params.get('code'),
      code_verifier: pending.verifier,
      client_id: `${pending.realm}-frontend`,
      redirect_uri: redirectUri(),
    },
  });
  userToken.set(answer.access_token);
}

export function signOut() {
  userToken.set(undefined);
  adminToken.set(undefined);
}
