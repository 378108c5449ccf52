import type { EmuContext } from '../context.js';
import { findEndpoint, type Endpoint } from '../services/epr/endpoints.js';
import { extensions } from './extensions/index.js';

/**
 * An MQTT connection started speaking for an endpoint, and its first message was answered: each extension pushes
 * what a device that connects should receive (spec 4: `cmx` and `cmx_ota` what it has not applied yet), unless the
 * device was `told` of that resource already (`<extension>/<resource>`).
 */
export function announceConnected(ctx: EmuContext, endpoint: Endpoint, told: ReadonlySet<string>): void {
  // The first message may have changed the record (metadata, and with it the software version).
  const current = findEndpoint(ctx, endpoint.tenantId, endpoint.endpointId);
  if (!current) return;
  for (const extension of extensions) {
    try {
      extension.connected?.(ctx, current, told);
    } catch (err) {
      ctx.log(
        `KP1 ${extension.name}: what endpoint ${current.endpointId} should receive on connecting was not ` +
          `pushed: ${(err as Error)?.stack ?? String(err)}`,
      );
    }
  }
}
