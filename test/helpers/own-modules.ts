const DIST = new URL('../../dist/', import.meta.url).href;

/** Our modules (paths relative to dist/) among the URLs a run imported (test/helpers/imports-log.mjs). */
export const ownModules = (urls: string[]): string[] =>
  urls.filter((url) => url.startsWith(DIST)).map((url) => url.slice(DIST.length));
