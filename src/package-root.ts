import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's folder: where package.json, fixtures/ and ui/ are. The one place that computes it, because this code
 * runs from several depths: src/ (tests), dist/ (tsc's output, the library) and dist/cli-bundle/ (the bundled CLI,
 * where this module is part of a chunk). The nearest folder above with a package.json is the package's own: dist/
 * and src/ have none.
 */
export const PACKAGE_ROOT: string = nearestPackageFolder(dirname(fileURLToPath(import.meta.url)));

/** A path inside the package, such as `packagePath('fixtures', 'default.json')`. */
export function packagePath(...segments: string[]): string {
  return join(PACKAGE_ROOT, ...segments);
}

function nearestPackageFolder(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`platform-emu: no package.json above ${from}`);
  }
}
