import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lazyRouter } from '../../src/emulator/lazy-router.js';
import { errorHandler } from '../../src/server/errors.js';

/** The rejections nobody handled while a case ran: a lazy router must never leave one behind. */
const unhandled: unknown[] = [];
/** Fails a request still waiting for its answer as soon as a rejection goes unhandled (the answer never comes). */
let unhandledSeen: (reason: unknown) => void = () => undefined;
const recordUnhandled = (reason: unknown) => {
  unhandled.push(reason);
  unhandledSeen(reason);
};
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', recordUnhandled);
});
afterEach(() => void process.off('unhandledRejection', recordUnhandled));

/**
 * A lazy router at `/lazy` in front of the emulator's 404 and error handler, served over real HTTP on port 0;
 * `arrived` is called with each request before the router sees it.
 */
async function serve(load: () => Promise<RequestHandler>, arrived: () => void = () => undefined) {
  const logged: string[] = [];
  const app = express();
  app.use((_req, _res, next) => (arrived(), next()));
  app.use('/lazy', lazyRouter(load));
  app.use((req, res) => void res.status(404).json({ message: `nothing at ${req.originalUrl}` }));
  app.use(errorHandler((line) => logged.push(line)));
  const server = createServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const get = async (path: string) => {
    const unanswered = new Promise<never>((_resolve, reject) => {
      unhandledSeen = (reason) => reject(new Error(`GET ${path}: a rejection went unhandled: ${String(reason)}`));
    });
    const response = await Promise.race([fetch(base + path), unanswered]);
    return { status: response.status, body: (await response.json()) as unknown };
  };
  return { get, logged };
}

/** Answers `{ ok: path }`, and throws synchronously on `/throw`. */
const handler: RequestHandler = (req, res) => {
  if (req.path === '/throw') throw new Error('boom');
  res.json({ ok: req.path });
};

describe('lazyRouter', () => {
  it('a handler that throws synchronously on the request that loads it answers 500 { message }, and serves on', async () => {
    let loads = 0;
    const { get, logged } = await serve(async () => (loads++, handler));
    expect(await get('/lazy/throw')).toEqual({
      status: 500,
      body: { message: 'Internal error while handling GET /lazy/throw: boom' },
    });
    expect(logged).toHaveLength(1);
    // Loaded now: a throw takes express's own path, and other requests are served by the one load.
    expect(await get('/lazy/throw')).toEqual({
      status: 500,
      body: { message: 'Internal error while handling GET /lazy/throw: boom' },
    });
    expect(await get('/lazy/fine')).toEqual({ status: 200, body: { ok: '/fine' } });
    expect(loads).toBe(1);
    expect(unhandled).toEqual([]);
  });

  it('requests that arrive while it loads share the load; a throw in one does not touch the others', async () => {
    let loads = 0;
    let arrivals = 0;
    let allArrived!: () => void;
    const three = new Promise<void>((resolve) => (allArrived = resolve));
    const { get } = await serve(
      async () => {
        loads++;
        await three; // the load ends only once all three requests wait for it
        return handler;
      },
      () => void (++arrivals === 3 && allArrived()),
    );
    expect(await Promise.all([get('/lazy/a'), get('/lazy/throw'), get('/lazy/b')])).toEqual([
      { status: 200, body: { ok: '/a' } },
      { status: 500, body: { message: 'Internal error while handling GET /lazy/throw: boom' } },
      { status: 200, body: { ok: '/b' } },
    ]);
    expect(loads).toBe(1);
    expect(unhandled).toEqual([]);
  });

  it('a load that fails answers 500 { message }; the next request loads again', async () => {
    let loads = 0;
    const { get } = await serve(async () => {
      if (++loads === 1) throw new Error('the module is missing');
      return handler;
    });
    expect(await get('/lazy/first')).toEqual({
      status: 500,
      body: { message: 'Internal error while handling GET /lazy/first: the module is missing' },
    });
    expect(await get('/lazy/second')).toEqual({ status: 200, body: { ok: '/second' } });
    expect(await get('/lazy/third')).toEqual({ status: 200, body: { ok: '/third' } });
    expect(loads).toBe(2);
    expect(unhandled).toEqual([]);
  });
});
