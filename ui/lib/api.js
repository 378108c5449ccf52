/**
 * The emulator's REST and control plane. With auth on, service calls carry the signed-in user's token (kept for this
 * browser tab, so that it survives the sign-in's redirects) and control-plane calls (`/_emu/...`) the emulator's admin
 * token, kept in this module's memory only: gone with the page, never in storage another script could read later.
 */
const store = (key) => ({
  get: () => sessionStorage.getItem(key) ?? undefined,
  set: (value) => (value ? sessionStorage.setItem(key, value) : sessionStorage.removeItem(key)),
});
export const userToken = store('platform-emu-ui-user-token');
let admin;
export const adminToken = { get: () => admin, set: (value) => (admin = value || undefined) };
// An admin token a previous version of the dashboard kept in the tab's storage is removed.
globalThis.sessionStorage?.removeItem('platform-emu-ui-admin-token');

/**
 * The dashboard's own recent calls (method and path), so that the overview can leave them out of "Last requests"
 * when their journal entries arrive. Bounded: the oldest are dropped.
 */
const ownCalls = [];
const OWN_CALLS_KEPT = 200;
export function isOwnCall(method, path) {
  const key = `${method} ${String(path).split('?')[0]}`;
  const index = ownCalls.indexOf(key);
  if (index === -1) return false;
  ownCalls.splice(index, 1);
  return true;
}

export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

const tokenFor = (path) => (path.startsWith('/_emu/') ? adminToken.get() : userToken.get());

/**
 * `api('GET', '/epr/api/v1/endpoints', { query: { limit: 10 } })`: the parsed answer, or an ApiError with the
 * emulator's message.
 */
export async function api(method, path, { query, body, raw, form, headers: extra } = {}) {
  const url = new URL(path, location.origin);
  for (const [name, value] of Object.entries(query ?? {}))
    if (value !== undefined && value !== '') url.searchParams.set(name, String(value));
  const headers = { ...extra };
  const token = tokenFor(path);
  if (token && !form) headers.authorization = `Bearer ${token}`;
  let payload;
  if (form) payload = new URLSearchParams(form);
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  ownCalls.push(`${method} ${url.pathname}`);
  if (ownCalls.length > OWN_CALLS_KEPT) ownCalls.shift();
  // API data is never read from the HTTP cache: what is shown (and saved back) is what the emulator holds now.
  const response = await fetch(url, { method, headers, body: payload, cache: 'no-store' });
  const text = await response.text();
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  if (!response.ok) {
    const message =
      parsed?.message ??
      parsed?.error_description ??
      response.headers.get('x-platform-emu-message') ??
      `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, message, parsed);
  }
  return raw ? { status: response.status, body: parsed, headers: response.headers } : parsed;
}

/** A link's download with the user's token (an anchor alone cannot send it): fetched, then saved from memory. */
export async function downloadWithToken(event) {
  const token = userToken.get();
  if (!token) return;
  event.preventDefault();
  const link = event.currentTarget;
  const response = await fetch(link.href, { headers: { authorization: `Bearer ${token}` }, cache: 'no-store' });
  if (!response.ok) throw new ApiError(response.status, `Download failed: ${response.status}`);
  const url = URL.createObjectURL(await response.blob());
  Object.assign(document.createElement('a'), { href: url, download: link.getAttribute('download') ?? '' }).click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
