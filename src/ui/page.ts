import express, { type Request, type Response, type Router } from 'express';
import { notFound } from '../server/errors.js';
import { loadUiAssets, type Asset, type UiAssets } from './assets.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The page runs its own modules only: no inline script or style attribute, nothing from elsewhere, no frames, no
 * plugins. An injected `<script>` or `javascript:` link does not run even if one were rendered. Its one inline
 * stylesheet applies by its hash (`styleSource`); an injected `<style>` would not.
 */
export const dashboardCsp = (styleSource: string): string =>
  [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self' ${styleSource}`,
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join('; ');

const withCsp = (assets: UiAssets) => ({ ...assets, csp: dashboardCsp(assets.styleSource) });

function send(req: Request, res: Response, file: Asset, cacheControl: string): void {
  const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
  res.set({
    'Content-Type': file.type,
    'Cache-Control': cacheControl,
    Vary: 'Accept-Encoding',
    'X-Content-Type-Options': 'nosniff',
  });
  if (gzip) res.set('Content-Encoding', 'gzip');
  res.end(req.method === 'HEAD' ? undefined : gzip ? file.gzip : file.body);
}

/**
 * The dashboard's files, mounted at `/_emu`: files, not operations, so not a route table.
 * - `GET /_emu/ui`: the page (no-cache); `GET /_emu/ui/assets/<hash>/...`: its modules (cached for good).
 */
export function dashboardPageRouter(): Router {
  const router = express.Router();
  // Read when first asked, not at start: an emulator nobody opens the dashboard of starts as fast as before.
  let loaded: (UiAssets & { csp: string }) | undefined;
  const assets = () => (loaded ??= withCsp(loadUiAssets()));
  router.get('/ui', (req, res) => {
    // The page's relative URLs need the trailing slash.
    if (!req.originalUrl.split('?')[0]!.endsWith('/')) return res.redirect(301, '/_emu/ui/');
    res.set({ 'Content-Security-Policy': assets().csp, 'Referrer-Policy': 'no-referrer' });
    send(req, res, assets().index, 'no-cache');
  });
  router.get('/ui/assets/:hash/*file', (req, res) => {
    const name = ([] as string[]).concat(req.params.file as string | string[]).join('/');
    const file = req.params.hash === assets().hash ? assets().files.get(name) : undefined;
    if (!file) throw notFound(`The dashboard has no file ${name} (version ${req.params.hash}); reload /_emu/ui/.`);
    send(req, res, file, IMMUTABLE);
  });
  return router;
}
