import { resolve } from 'node:path';
import { listensEverywhere, renamedUrl } from '../config.js';
import type { EmuContext } from '../context.js';
import { onlineEndpointCount } from '../gateway/index.js';
import { presentClock } from '../server/control/clock.js';
import { faultsOf } from '../server/faults.js';
import { isLoopback } from '../server/host-check.js';
import { journalOf } from '../server/journal.js';
import { VERSION } from '../version.js';

/** What a running emulator knows of itself that its context does not. */
export interface RunningFacts {
  ready: () => boolean;
  url: () => string;
  mqttUrl: string;
  mqttPort: number;
  startedAt: string;
  mqttsUrl: string;
  mqttsPort: number;
  /** With `--https-port`: the REST port's twin over TLS. */
  httpsUrl?: () => string | undefined;
}

/** The records a service holds in its collections: what the dashboard's overview and `platform-emu status` show. */
const recordCount = (ctx: EmuContext, collections: Record<string, unknown> | undefined) =>
  Object.keys(collections ?? {}).reduce((sum, collection) => sum + ctx.store.count(collection), 0);

/**
 * The emulator's URLs as a caller that reached it under `reachedAs` uses them. Listening on every interface, the
 * emulator names itself `localhost`, which is another machine (or container) for a caller that came by another name:
 * its URLs then carry that name (the ports stay the emulator's own).
 */
function urlsFor(ctx: EmuContext, reachedAs: string | undefined): (url: string) => string {
  if (reachedAs === undefined || !listensEverywhere(ctx.config.host) || isLoopback(reachedAs)) return (url) => url;
  return (url) => renamedUrl(url, reachedAs);
}

/** `GET /_emu/health`: readiness and where everything is (docs/control-plane.md, "Health"). */
export function healthAnswer(
  ctx: EmuContext,
  facts: RunningFacts,
  reachedAs?: string,
): Record<string, unknown> & { ready: boolean } {
  const { config, store } = ctx;
  const seen = urlsFor(ctx, reachedAs);
  const url = seen(facts.url());
  const httpsUrl = facts.httpsUrl?.();
  return {
    // While the store cannot write, the emulator is not ready: 503 with the reason, until a write succeeds again.
    ready: facts.ready() && !store.failure,
    ...(store.failure ? { status: 'failing', message: store.failure } : {}),
    version: VERSION,
    url,
    dataDir: config.dataDir ? resolve(config.dataDir) : null,
    inMemory: config.inMemory,
    auth: config.auth,
    defaultTenant: ctx.defaultTenantId(),
    mqtt: {
      url: seen(facts.mqttUrl),
      port: facts.mqttPort,
      auth: config.mqttAuth,
      onlineEndpoints: onlineEndpointCount(ctx),
    },
    mqtts: {
      url: seen(facts.mqttsUrl),
      port: facts.mqttsPort,
      clientAuth: config.tlsClientAuth,
      caUrl: `${url}/_emu/tls/ca.pem`,
    },
    ...(httpsUrl ? { httpsUrl: seen(httpsUrl) } : {}),
    clock: presentClock(ctx),
    faults: faultsOf(ctx).list(),
    journal: { size: config.journalSize, lastSeq: journalOf(ctx).lastSeq },
    services: ctx.services.map((s) => ({
      name: s.prefix,
      title: s.title,
      url: `${url}/${s.prefix}/api/v1`,
      records: recordCount(ctx, s.collections),
    })),
    pid: process.pid,
    startedAt: facts.startedAt,
  };
}
