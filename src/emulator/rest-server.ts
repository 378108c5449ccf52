import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { EmuContext } from '../context.js';
import { kp1HttpRouter, type Gateway } from '../gateway/index.js';
import { createApp } from '../server/app.js';
import { onClientError } from '../server/client-error.js';
import { controlRouter, type ControlHooks } from '../server/control/index.js';
import { healthAnswer } from './health.js';
import { lazyRouter } from './lazy-router.js';
import { openApiRouter } from './openapi-router.js';
import { tlsRouter } from './tls-router.js';
import type { ServerCredentials } from '../tls/server-credentials.js';
import { importState, replaceState, resetState } from './state.js';

/** What the REST port shows of the running emulator: set once it listens, `ready` false again while it stops. */
export interface RestStatus {
  url: string;
  ready: boolean;
  /** With `--https-port`, once it listens. */
  httpsUrl?: string;
}

export interface RestServerOptions {
  gateway: Gateway;
  status: RestStatus;
  startedAt: string;
  adminToken: () => string;
  issueToken: ControlHooks['issueToken'];
}

/**
 * The REST port's server: every service, the control plane and the services' own control routes, the dashboard,
 * OpenAPI, KP1 over HTTP, the OIDC realms (the dashboard's and the realms' modules load with their first request).
 */
export function restServer(ctx: EmuContext, options: RestServerOptions): Server {
  const { gateway, status, adminToken } = options;
  const facts = {
    ready: () => status.ready,
    url: () => status.url,
    mqttUrl: gateway.mqttUrl,
    mqttPort: gateway.mqttPort,
    startedAt: options.startedAt,
    mqttsUrl: gateway.mqttsUrl,
    mqttsPort: gateway.mqttsPort,
    httpsUrl: () => status.httpsUrl,
  };
  const control = controlRouter(ctx, {
    health: (reachedAs) => healthAnswer(ctx, facts, reachedAs),
    importState: (input) => importState(ctx, input, 'the imported document'),
    replaceState: (document) => replaceState(ctx, document),
    reset: (resetOptions) => resetState(ctx, resetOptions),
    issueToken: options.issueToken,
  });
  const dashboardFacts = () => ({
    url: status.url,
    mqttUrl: gateway.mqttUrl,
    adminToken: ctx.config.auth === 'on' ? adminToken() : undefined,
  });
  const app = createApp(ctx, {
    adminToken,
    mounts: [
      { path: '/_emu', router: control },
      ...ctx.services.flatMap((s) => (s.controlPlane ? [{ path: '/_emu', router: s.controlPlane(ctx) }] : [])),
      {
        path: '/_emu',
        router: lazyRouter(async () => (await import('../ui/server.js')).uiRouter(ctx, dashboardFacts)),
      },
      { path: '/_emu/openapi.json', router: openApiRouter(ctx) },
      { path: '/_emu/tls', router: tlsRouter(ctx) },
      { path: '/kp1', router: kp1HttpRouter(ctx) },
      { path: '/auth', router: lazyRouter(async () => (await import('../oidc/router.js')).oidcRouter(ctx)) },
    ],
  });
  const server = createServer({ keepAliveTimeout: 5000 }, app);
  server.on('clientError', onClientError);
  return server;
}

/** `--https-port`: the same routes over TLS, answered by the REST server's own request handler. */
export function httpsTwin(server: Server, tls: ServerCredentials): Server {
  const twin = createHttpsServer({ cert: tls.cert, key: tls.key, keepAliveTimeout: 5000 }, (req, res) =>
    server.emit('request', req, res),
  );
  twin.on('clientError', onClientError);
  return twin;
}

export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolveListen(server.address() as AddressInfo);
    });
  });
}
