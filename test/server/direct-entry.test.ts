import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { afterAll, describe, expect, it } from 'vitest';
import { enterFirstDirectly, firstPathLevel } from '../../src/server/direct-entry.js';

/** What the first middleware saw of the request, as its answer. */
function seen(req: Request, res: Response) {
  return {
    url: req.url,
    originalUrl: req.originalUrl,
    baseUrl: req.baseUrl,
    path: req.path,
    params: req.params,
    query: req.query,
    app: req.app === res.app,
    next: typeof req.next,
    locals: Object.getPrototypeOf(res.locals),
    resReq: res.req === req,
    reqRes: req.res === res,
    extra: (req as Request & { extra?: unknown }).extra,
  };
}

/** An app like the emulator's: the first middleware, a mount after it, the 404 and the error handler. */
async function appServer(direct: boolean): Promise<{ server: Server; url: string }> {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const first = (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Cache-Control', 'no-cache');
    (req as Request & { extra?: unknown }).extra = 'set by first';
    if (req.path.endsWith('/ok')) return void res.json(seen(req, res));
    if (req.path.endsWith('/next')) return next();
    if (req.path.endsWith('/route')) return next('route');
    if (req.path.endsWith('/throw')) throw Object.assign(new Error('thrown'), { status: 418 });
    if (req.path.endsWith('/err')) return next(Object.assign(new Error('passed'), { status: 409 }));
    if (req.path.endsWith('/reject')) return Promise.reject(Object.assign(new Error('rejected'), { status: 422 }));
    if (req.path.endsWith('/later')) return void setImmediate(next);
    res.status(204).end();
  };
  enterFirstDirectly(
    app,
    (level) => direct && level === 'svc',
    first,
    (req) => {
      (req as Request & { extra?: unknown }).extra = undefined;
    },
  );
  app.use('/svc/mounted', (req, res) => void res.json({ mounted: seen(req, res) }));
  app.use((req, res) => void res.status(404).json({ message: `nothing at ${req.originalUrl}` }));
  app.use((err: Error & { status?: number }, req: Request, res: Response, _next: NextFunction) => {
    res.status(err.status ?? 500).json({ message: err.message, path: req.path, baseUrl: req.baseUrl });
  });
  const server = createServer({ keepAliveTimeout: 5000 }, app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Status, every header in order but Date, and the body. */
function answer(url: string, method: string, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const req = request({ host: hostname, port, method, path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const headers: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2)
          if (res.rawHeaders[i] !== 'Date') headers.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        resolve([res.statusCode, ...headers, '', Buffer.concat(chunks).toString('utf8')].join('\n'));
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a request entered directly', () => {
  it('finds the first path level of a URL in origin form only', () => {
    expect(firstPathLevel('/epr/api/v1/endpoints?x=1')).toBe('epr');
    expect(firstPathLevel('/epr?x=/y')).toBe('epr');
    expect(firstPathLevel('/epr')).toBe('epr');
    expect(firstPathLevel('//epr/api')).toBe('');
    expect(firstPathLevel('/')).toBe('');
    expect(firstPathLevel('http://host/epr')).toBeUndefined();
    expect(firstPathLevel('*')).toBeUndefined();
  });

  it("is answered byte for byte as through express's Router, whatever the first middleware does", async () => {
    const [direct, routed] = [await appServer(true), await appServer(false)];
    const cases: Array<[string, string]> = [];
    for (const method of ['GET', 'HEAD', 'POST', 'OPTIONS'])
      for (const end of ['ok', 'next', 'route', 'throw', 'err', 'reject', 'later', 'mounted', 'other'])
        cases.push([method, `/svc/a%20b/${end}?q=1&q=2`]);
    cases.push(['GET', '/svc'], ['GET', '/svc/'], ['GET', '/svc?x=1'], ['GET', '/SVC/ok'], ['GET', '/svc//ok']);
    for (const [method, path] of cases) {
      const [a, b] = [await answer(direct.url, method, path), await answer(routed.url, method, path)];
      expect(`${method} ${path}\n${a}`).toBe(`${method} ${path}\n${b}`);
    }
    // The first middleware saw what express's Router gives it.
    const ok = JSON.parse((await answer(direct.url, 'GET', '/svc/x/ok?q=1')).split('\n\n')[1]!);
    expect(ok).toEqual({
      url: '/svc/x/ok?q=1',
      originalUrl: '/svc/x/ok?q=1',
      baseUrl: '',
      path: '/svc/x/ok',
      params: {},
      query: { q: '1' },
      app: true,
      next: 'function',
      locals: null,
      resReq: true,
      reqRes: true,
      extra: 'set by first',
    });
  });

  it('refuses an app that sends X-Powered-By', () => {
    expect(() =>
      enterFirstDirectly(
        express(),
        () => true,
        (_req, _res, next) => next(),
        () => undefined,
      ),
    ).toThrow(/x-powered-by/);
  });
});
