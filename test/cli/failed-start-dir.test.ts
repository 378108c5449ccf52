import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, cli } from '../store/emulator-process.js';

assertBuilt();
const root = mkdtempSync(join(tmpdir(), 'platform-emu-failed-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const bad = join(root, 'bad-fixtures.json');
writeFileSync(bad, JSON.stringify({ tenants: [{ id: 42 }] }));

describe('a start or import that fails in a new directory', () => {
  it('start --fixtures with a file that does not validate leaves no directory', async () => {
    const dir = join(root, 'start');
    const result = await cli(['start', '--port', '0', '--mqtt-port', '0', '--data-dir', dir, '--fixtures', bad]);
    expect(result.exitCode).not.toBe(0);
    expect(existsSync(dir)).toBe(false);
  });

  it('fixtures import of a file that does not validate leaves no directory', async () => {
    const dir = join(root, 'import');
    const result = await cli(['fixtures', 'import', bad, '--data-dir', dir]);
    expect(result.exitCode).toBe(1);
    expect(existsSync(dir)).toBe(false);
  });
});
