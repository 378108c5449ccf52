import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { packagePath } from '../package-dir.js';

/** The dashboard's page sources: the `ui/` folder the package ships (plain ES modules, no build step). */
export const UI_SOURCE_DIR = packagePath('ui');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
};

export interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
}

export interface UiAssets {
  /** One hash over every file: assets are served under `assets/<hash>/`, cached for good, and index.html names it. */
  hash: string;
  index: Asset;
  /** The CSP source (`'sha256-...'`) that lets the stylesheet inlined in index.html apply, and nothing else inline. */
  styleSource: string;
  files: Map<string, Asset>;
  /** Bytes of all files gzip-compressed: what a first visit downloads at most. */
  gzipBytes: number;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? listFiles(path) : entry.isFile() && TYPES[extname(entry.name)] ? [path] : [];
  });
}

const asset = (type: string, body: Buffer): Asset => ({ type, body, gzip: gzipSync(body, { level: 9 }) });

/**
 * The stylesheet goes inside index.html (at `%STYLE%`) rather than beside it: a stylesheet blocks the first paint,
 * and a separate one costs that paint a round trip to the emulator (figure 12b, docs/performance.md).
 */
const INLINED_STYLE = 'style.css';

/**
 * Reads the UI into memory once (it is small), compressed ahead, so that serving it costs a map lookup; style.css
 * is not served on its own but inside index.html.
 */
export function loadUiAssets(dir = UI_SOURCE_DIR): UiAssets {
  const sources = listFiles(dir).sort();
  const hasher = createHash('sha256');
  const raw = new Map<string, Buffer>();
  for (const path of sources) {
    const name = relative(dir, path).split(sep).join('/');
    const body = readFileSync(path);
    hasher.update(name).update(body);
    raw.set(name, body);
  }
  const hash = hasher.digest('hex').slice(0, 12);
  const files = new Map<string, Asset>();
  for (const [name, body] of raw)
    if (name !== 'index.html' && name !== INLINED_STYLE) files.set(name, asset(TYPES[extname(name)]!, body));
  const html = raw.get('index.html');
  const style = raw.get(INLINED_STYLE);
  if (!html || !style) throw new Error(`The dashboard's index.html or ${INLINED_STYLE} is missing from ${dir}.`);
  const source = html.toString('utf8').replaceAll('%ASSETS%', `assets/${hash}`);
  // The element's text is the stylesheet byte for byte: what the CSP hash below names.
  const page = source.replace(/<style>\s*%STYLE%\s*<\/style>/, () => `<style>${style.toString('utf8')}</style>`);
  if (page === source) throw new Error(`The dashboard's index.html has no <style>%STYLE%</style> in ${dir}.`);
  const index = asset(TYPES['.html']!, Buffer.from(page));
  const styleSource = `'sha256-${createHash('sha256').update(style).digest('base64')}'`;
  let gzipBytes = index.gzip.length;
  for (const file of files.values()) gzipBytes += file.gzip.length;
  return { hash, index, styleSource, files, gzipBytes };
}
