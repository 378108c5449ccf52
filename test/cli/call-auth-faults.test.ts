import { describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import { assertBuilt, cli } from '../store/emulator-process.js';

assertBuilt();

/** The CLI with no PLATFORM_EMU_* variables but the ones given. */
const clean = (env: Record<string, string> = {}): Record<string, string> => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && !entry[0].startsWith('PLATFORM_EMU_'),
    ),
  ),
  ...env,
});

describe('platform-emu call with --auth on', async () => {
  const emulator = await startTestEmulator({ auth: 'on', adminToken: 'call-auth-admin' });
  const url = ['--url', emulator.url];

  it('finds a token through the admin token, as the control-plane commands do', async () => {
    const result = await cli(['call', 'GET', '/endpoints/meter-001', ...url], {
      env: clean({ PLATFORM_EMU_ADMIN_TOKEN: 'call-auth-admin' }),
    });
    expect(result.stderr).toContain('200 OK');
    expect(result.exitCode).toBe(0);
  });

  it('says which flag to add when it has no way to a token', async () => {
    const result = await cli(['call', 'GET', '/endpoints/meter-001', ...url], { env: clean() });
    expect(result.stderr).toContain('401');
    expect(result.stderr).toContain('Add --token <jwt> (or PLATFORM_EMU_TOKEN), or --data-dir of the emulator');
    expect(result.exitCode).toBe(4);
  });
});

describe('platform-emu call and HTTP faults', async () => {
  const emulator = await startTestEmulator();
  const url = ['--url', emulator.url];

  it('a fault on /epr hits the bare spelling call sends and the prefixed one', async () => {
    const added = await cli(['faults', 'add', 'http', '--path', '/epr', '--status', '503', '--count', '2', ...url], {
      env: clean(),
    });
    expect(added.exitCode, added.stderr).toBe(0);
    const bare = await cli(['call', 'GET', '/endpoints/meter-001', ...url], { env: clean() });
    expect(bare.stderr).toContain('503');
    expect(bare.exitCode).toBe(5);
    const prefixed = await cli(['call', 'GET', '/epr/api/v1/endpoints/meter-001', ...url], { env: clean() });
    expect(prefixed.exitCode).toBe(5);
    const after = await cli(['call', 'GET', '/endpoints/meter-001', ...url], { env: clean() });
    expect(after.exitCode).toBe(0);
  });
});
