import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Writes a fixture document to a new temporary file and returns its path. */
export function fixtureFile(content: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'emu-fixture-')), 'fixture.json');
  writeFileSync(path, JSON.stringify(content));
  return path;
}
