import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's own folder, where `package.json`, `fixtures/` and `ui/` are: the nearest folder above this module
 * that holds a `package.json`. This module runs from `dist/` (tsc's output, which the library and the tests import)
 * and from `dist/bundle/` (the CLI's bundle, scripts/bundle-cli.mjs), one folder deeper, so no one relative path
 * would do for both.
 */
function packageDir(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`No package.json above ${fileURLToPath(import.meta.url)}.`);
    dir = parent;
  }
}

const PACKAGE_DIR = packageDir();

/** A path inside the package's folder. */
export const packagePath = (...segments: string[]): string => join(PACKAGE_DIR, ...segments);
