/** What `/protocol/openid-connect/auth` was asked for, kept through the login form. */
export interface AuthorizeRequest {
  clientId: string;
  redirectUri: string;
  state?: string;
  scope?: string;
  /** The PKCE challenge (S256), when the client sent one. */
  challenge?: string;
  responseMode: 'query' | 'fragment';
  nonce?: string;
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const hidden = (name: string, value: string | undefined) =>
  value === undefined ? '' : `<input type="hidden" name="${name}" value="${escape(value)}">`;

/** The realm's login form of the authorization code flow: small, self-contained, accessible. */
export function loginPage(
  realm: string,
  request: AuthorizeRequest,
  shown: { username?: string; error?: string } = {},
): string {
  const fields =
    hidden('response_type', 'code') +
    hidden('client_id', request.clientId) +
    hidden('redirect_uri', request.redirectUri) +
    hidden('state', request.state) +
    hidden('scope', request.scope) +
    hidden('response_mode', request.responseMode) +
    hidden('nonce', request.nonce) +
    hidden('code_challenge', request.challenge) +
    hidden('code_challenge_method', request.challenge === undefined ? undefined : 'S256');
  return (
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in to ${escape(realm)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;color:#1b1f24;max-width:24rem;margin:3rem auto;padding:0 ` +
    `1rem}label{display:block;margin:.8rem 0 .2rem}
input{font:inherit;width:100%;box-sizing:border-box;padding:.4rem;border:1px solid ` +
    `#6e7781;border-radius:4px}button{font:inherit;margin-top:1rem;padding:.5rem ` +
    `1rem;background:#0b5cad;color:#fff;border:0;border-radius:4px}
.error{color:#a40e26;font-weight:600}input:focus-visible,button:focus-visible{outline:3px solid ` +
    `#f5b400}</style></head>
<body><main><h1>Sign in to ${escape(realm)}</h1>
<p>platform-emu: a user of the realm (a fixture user or an identity and access manager user) signs in for ` +
    `${escape(request.clientId)}.</p>
${shown.error ? `<p class="error" role="alert">${escape(shown.error)}</p>` : ''}
<form method="post">
${fields}
<label for="username">User name</label><input id="username" name="username" autocomplete="username" required ` +
    `autofocus value="${escape(shown.username ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" ` +
    `autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form></main></body></html>
`
  );
}
