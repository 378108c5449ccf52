/** The emulator's REST and control plane, with the signed-in token when auth is on. */
const TOKEN_KEY = 'platform-emu-ui-token';

export const session = {
  get token() {
    return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  },
  set token(value) {
    if (value) sessionStorage.setItem(TOKEN_KEY, value);
    else sessionStorage.removeItem(TOKEN_KEY);
  },
};

export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

/** `api('GET', '/epr/api/v1/endpoints', { query: { limit: 10 } })`: the parsed answer, or an ApiError with the emulator's message. */
export async function api(method, path, { query, body, raw } = {}) {
  const url = new URL(path, location.origin);
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined && value !== '') url.searchParams.set(name, String(value));
  const headers = {};
  if (session.token) headers.authorization = `Bearer ${session.token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  if (!response.ok) {
    const message = parsed?.message ?? parsed?.error_description ?? response.headers.get('x-platform-emu-message') ?? `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, message, parsed);
  }
  return raw ? { status: response.status, body: parsed, headers: response.headers } : parsed;
}
