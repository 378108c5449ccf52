import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** A temporary directory for one test file, removed after its tests; `freshDir()` names a new path under it. */
export function tempRoot(prefix: string) {
  const root = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  let dirs = 0;
  return { root, freshDir: () => join(root, `d${++dirs}`) };
}
