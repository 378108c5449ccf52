import { readFileSync } from 'node:fs';

const DIST = new URL('../../dist/', import.meta.url).href;
const BUNDLE = `${DIST}cli-bundle/`;

/**
 * Our modules (paths relative to dist/) among the URLs a run imported (test/helpers/imports-log.mjs): a file of the
 * CLI's bundle stands for the modules of dist/ it joins (dist/cli-bundle/modules.json, written by the build).
 */
export function ownModules(urls: string[]): string[] {
  let joined: Record<string, string[]> | undefined;
  const modules = urls.flatMap((url) => {
    if (url.startsWith(BUNDLE)) {
      joined ??= JSON.parse(readFileSync(new URL('modules.json', BUNDLE), 'utf8')) as Record<string, string[]>;
      const file = url.slice(BUNDLE.length);
      if (!joined[file]) throw new Error(`${file} is not in dist/cli-bundle/modules.json: run \`npm run build\`.`);
      return joined[file];
    }
    return url.startsWith(DIST) ? [url.slice(DIST.length)] : [];
  });
  return [...new Set(modules)];
}
