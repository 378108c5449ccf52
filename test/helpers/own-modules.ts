import { readFileSync } from 'node:fs';

const DIST = new URL('../../dist/', import.meta.url).href;
const BUNDLE = new URL('../../dist/bundle/', import.meta.url).href;

interface BundleFile {
  /** dist/'s modules it holds, relative to dist/. */
  modules: string[];
  /** The packages it holds code of. */
  packages: string[];
}

/** What each file of the CLI's bundle holds (written by scripts/bundle-cli.mjs). */
let bundled: Record<string, BundleFile> | undefined;
const contentsOf = (file: string): BundleFile => {
  bundled ??= JSON.parse(readFileSync(new URL('meta.json', BUNDLE), 'utf8')) as Record<string, BundleFile>;
  const contents = bundled[file];
  if (!contents) throw new Error(`dist/bundle/meta.json does not name ${file}: run \`npm run build\`.`);
  return contents;
};
const bundleFiles = (urls: string[]) =>
  urls.filter((url) => url.startsWith(BUNDLE)).map((url) => url.slice(BUNDLE.length));

/**
 * Our modules (paths relative to dist/) among the URLs a run imported (test/helpers/imports-log.mjs): a file of the
 * CLI's bundle stands for the modules it holds.
 */
export const ownModules = (urls: string[]): string[] => [
  ...new Set([
    ...urls.filter((url) => url.startsWith(DIST) && !url.startsWith(BUNDLE)).map((url) => url.slice(DIST.length)),
    ...bundleFiles(urls).flatMap((file) => contentsOf(file).modules),
  ]),
];

/** The packages a run loaded: from node_modules, or held in a file of the CLI's bundle it imported. */
export const loadedPackages = (urls: string[]): string[] =>
  [
    ...new Set([
      ...urls
        .map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*\/node_modules\/)/.exec(url)?.[1])
        .filter((name): name is string => Boolean(name)),
      ...bundleFiles(urls).flatMap((file) => contentsOf(file).packages),
    ]),
  ].sort();
