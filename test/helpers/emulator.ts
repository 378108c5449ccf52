import { afterAll } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/index.js';
import type { EmulatorOptions } from '../../src/config.js';

/** An in-memory emulator on free ports, stopped after the file's tests. */
export async function startTestEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const emulator = await startEmulator({ port: 0, mqttPort: 0, inMemory: true, log: () => undefined, ...options });
  afterAll(() => emulator.stop());
  return emulator;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface ApiOptions {
  body?: unknown;
  /** Sent as is (for malformed JSON and odd content types). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  token?: string;
}

/** Real HTTP against a running emulator; parses JSON answers. */
export function api(base: string | RunningEmulator) {
  const url = typeof base === 'string' ? base : base.url;
  return async function call<T = any>(method: string, path: string, options: ApiOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | Buffer | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(url + path, { method, headers, body: body as BodyInit | undefined });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  };
}

/** A token from the emulator's own control plane (with its admin token), as `platform-emu token` gets it. */
export async function tokenFor(
  emulator: RunningEmulator,
  request: { tenant?: string; scopes?: string[]; platform?: boolean; ttlSeconds?: number } = {},
): Promise<string> {
  const response = await api(emulator)<{ token: string }>('POST', '/_emu/token', {
    body: request,
    token: emulator.adminToken,
  });
  if (response.status !== 200) throw new Error(`token: ${response.status} ${response.text}`);
  return response.body.token;
}
