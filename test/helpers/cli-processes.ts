import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { assertBuilt, startProcess, type EmulatorProcess } from '../store/emulator-process.js';

/**
 * `platform-emu start` in processes of its own, for one test file (call it at the file's top): data directories under
 * one temporary root, every process killed and the root removed after the file's tests.
 */
export function processesOfThisFile() {
  const root = mkdtempSync(join(tmpdir(), 'platform-emu-cli-'));
  let dirs = 0;
  const freshDir = () => join(root, `d${++dirs}`);
  const running: EmulatorProcess[] = [];

  beforeAll(assertBuilt);
  afterAll(async () => {
    await Promise.all(running.map((e) => e.stop('SIGKILL')));
    rmSync(root, { recursive: true, force: true });
  });

  async function start(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<EmulatorProcess> {
    const emulator = await startProcess(args, env, cwd);
    running.push(emulator);
    return emulator;
  }

  let template: Promise<string> | undefined;

  /** A data directory with the default fixtures, as a real start and a clean stop leave it (made once, then copied). */
  async function seededDir(): Promise<string> {
    template ??= (async () => {
      const dir = freshDir();
      const emulator = await start(['--port', '0', '--quiet', '--data', dir]);
      expect(await emulator.stop('SIGTERM')).toMatchObject({ exitCode: 0 });
      expect(readdirSync(dir).sort()).toEqual(['mutations.jsonl', 'signing-key.json', 'state.json', 'tls-ca.json']);
      return dir;
    })();
    const dir = freshDir();
    cpSync(await template, dir, { recursive: true });
    return dir;
  }

  return { root, freshDir, start, seededDir };
}

export async function getJson(url: string, token?: string): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: response.status, body: await response.json() };
}

/** Registers a tracker endpoint of the given id; answers the status. */
export async function register(url: string, endpointId: string): Promise<number> {
  const response = await fetch(`${url}/epr/api/v1/endpoints`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ endpointId, appVersion: { name: 'tracker-v1' } }),
  });
  return response.status;
}

/** A CLI run that failed as the house wants: the exit code, one line on stderr, nothing on stdout. */
export function expectOneLineError(
  result: { exitCode?: number; stderr: unknown; stdout: unknown },
  exitCode: number,
  pattern: RegExp,
): void {
  const stderr = String(result.stderr).trim();
  expect(result.exitCode, stderr).toBe(exitCode);
  expect(stderr.split('\n'), stderr).toHaveLength(1);
  expect(stderr).toMatch(pattern);
  expect(String(result.stdout)).toBe('');
}
