import { readFileSync } from 'node:fs';

const DIST = new URL('../../dist/', import.meta.url).href;
const BUNDLE = new URL('../../dist/bundle/', import.meta.url).href;

/** Which of dist/'s modules each file of the CLI's bundle holds (written by scripts/bundle-cli.mjs). */
let bundled: Record<string, string[]> | undefined;
const modulesIn = (file: string): string[] => {
  bundled ??= JSON.parse(readFileSync(new URL('meta.json', BUNDLE), 'utf8')) as Record<string, string[]>;
  const modules = bundled[file];
  if (!modules) throw new Error(`dist/bundle/meta.json does not name ${file}: run \`npm run build\`.`);
  return modules;
};

/**
 * Our modules (paths relative to dist/) among the URLs a run imported (test/helpers/imports-log.mjs): a file of the
 * CLI's bundle stands for the modules it holds.
 */
export const ownModules = (urls: string[]): string[] => [
  ...new Set(
    urls
      .filter((url) => url.startsWith(DIST))
      .flatMap((url) => (url.startsWith(BUNDLE) ? modulesIn(url.slice(BUNDLE.length)) : [url.slice(DIST.length)])),
  ),
];
