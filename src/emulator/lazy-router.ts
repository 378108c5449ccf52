import { Router, type RequestHandler } from 'express';

/**
 * A router whose modules load with the first request that reaches it (the dashboard, the OIDC realms): a start pays
 * nothing for what it is never asked. Requests that arrive while it loads wait for the same load; a load that fails
 * goes to the error handler, and the next request tries again.
 */
export function lazyRouter(load: () => Promise<RequestHandler>): Router {
  let router: RequestHandler | undefined;
  let loading: Promise<RequestHandler> | undefined;
  return Router().use((req, res, next) => {
    if (router) return router(req, res, next);
    loading ??= load().then(
      (loaded) => (router = loaded),
      (err: unknown) => {
        loading = undefined;
        throw err;
      },
    );
    // A throw inside `loaded` (synchronous, or its promise's rejection) reaches the error handler too.
    loading.then((loaded) => loaded(req, res, next)).catch(next);
  });
}
