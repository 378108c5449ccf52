import type { DevicePush, EmuContext } from '../context.js';
import { FAULTS_CHANGED } from '../server/events.js';
import { faultsOf, type DeviceFault } from '../server/faults.js';
import { journalOf } from '../server/journal.js';
import { findEndpointByToken, type Endpoint } from '../services/epr/endpoints.js';
import type { Kp1Reply } from './extension.js';
import { sessionsOf } from './sessions.js';
import { KP1_ROOT, parseKp1Path } from './topics.js';

/** What an `offline` device's message gets: nothing at all (over MQTT no reply is published). */
const DROPPED: Kp1Reply = { ok: true, statusCode: 0, payload: undefined, dropped: true };

function faultOfTopic(ctx: EmuContext, topic: string): { fault: DeviceFault; endpoint: Endpoint } | undefined {
  let parsed;
  try {
    parsed = parseKp1Path(topic);
  } catch {
    return undefined;
  }
  const endpoint = findEndpointByToken(ctx, parsed.appVersionName, parsed.token);
  const fault = endpoint ? faultsOf(ctx).device.get(endpoint.endpointId) : undefined;
  return fault && endpoint ? { fault, endpoint } : undefined;
}

/** Whether any device has a fault now: without one, a message needs no look at its topic for it. */
export const hasDeviceFaults = (ctx: EmuContext) => faultsOf(ctx).device.size > 0;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * A device message under the endpoint's fault: `offline` swallows it (so results never arrive and commands stay
 * pending), `slow` lets it arrive `latencyMs` late. Without device faults this is one size check.
 */
export async function underDeviceFault(
  ctx: EmuContext,
  topic: string,
  handle: () => Promise<Kp1Reply>,
): Promise<{ reply: Kp1Reply; endpoint?: Endpoint }> {
  const faulted = hasDeviceFaults(ctx) ? faultOfTopic(ctx, topic) : undefined;
  if (faulted?.fault.mode === 'offline') return { reply: DROPPED, endpoint: faulted.endpoint };
  if (faulted?.fault.mode === 'slow') await delay(faulted.fault.latencyMs ?? 0);
  return { reply: await handle(), endpoint: faulted?.endpoint };
}

export function journalKp1(
  ctx: EmuContext,
  entry: {
    topic: string;
    transport: 'mqtt' | 'http';
    status: number;
    endpoint?: Pick<Endpoint, 'tenantId' | 'endpointId'>;
    started: number;
    out?: boolean;
  },
): void {
  journalOf(ctx).record({
    seq: 0,
    at: 0,
    type: 'kp1',
    how: entry.transport,
    target: entry.topic,
    tenantId: entry.endpoint?.tenantId,
    endpointId: entry.endpoint?.endpointId,
    status: entry.status,
    latencyMs: performance.now() - entry.started,
    out: entry.out,
  });
}

/**
 * The push function the services use, with the devices' faults applied (`offline`: not delivered; `slow`: delivered
 * late) and each push journaled. A `disconnect` fault closes the endpoint's MQTT connection the moment it is added.
 */
export function faultAwareDevices(ctx: EmuContext, inner: DevicePush): { devices: DevicePush; stop(): void } {
  const faults = faultsOf(ctx);
  const timers = new Set<NodeJS.Timeout>();
  const onFaults = ({ added }: { added?: DeviceFault }) => {
    if (added?.kind === 'device' && added.mode === 'disconnect')
      sessionsOf(ctx).byEndpoint.get(added.endpointId)?.client?.close();
  };
  ctx.events.on(FAULTS_CHANGED, onFaults);
  const devices: DevicePush = {
    push(endpoint, extension, resource, payload) {
      const started = performance.now();
      const fault = faults.device.size > 0 ? faults.device.get(endpoint.endpointId) : undefined;
      const topic = `${KP1_ROOT}/${endpoint.appVersion.name}/${extension}/${endpoint.token}/${resource}/status`;
      if (fault?.mode === 'offline') {
        journalKp1(ctx, { topic, transport: 'mqtt', status: 0, endpoint, started, out: true });
        return;
      }
      const deliver = () => {
        inner.push(endpoint, extension, resource, payload);
        journalKp1(ctx, { topic, transport: 'mqtt', status: 200, endpoint, started, out: true });
      };
      if (fault?.mode !== 'slow') return deliver();
      const timer = setTimeout(() => {
        timers.delete(timer);
        deliver();
      }, fault.latencyMs ?? 0);
      timers.add(timer);
    },
  };
  return {
    devices,
    stop() {
      ctx.events.off(FAULTS_CHANGED, onFaults);
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
