import type { EmuContext } from '../context.js';
import { badRequest, conflict, notFound } from '../server/errors.js';
import { DEVICE_CHANGED, EMULATOR_STOPPING, STATE_REPLACED } from '../server/events.js';
import type { SimulatedDevice } from '../simulator/index.js';
import { SimulatorOptionsError, DeviceConnectError } from '../simulator/errors.js';
import type { Rules } from '../simulator/rules.js';
import { runtimeOf } from '../context.js';
import { requireEndpoint } from '../services/epr/endpoints.js';

/** Where simulated devices connect: the running emulator's own addresses. */
export interface DeviceTarget {
  url: string;
  mqttUrl: string;
  adminToken?: string;
}

export interface DeviceRequest {
  endpointId: string;
  /** The endpoint's tenant; default: the default tenant. */
  tenantId?: string;
  rules?: Rules;
  telemetry?: { sample: string; intervalMs?: number };
  metadata?: Record<string, unknown>;
  config?: boolean | 'reject';
  software?: boolean | 'reject';
}

export interface DeviceInfo {
  endpointId: string;
  tenantId: string;
  appVersion: string;
  startedAt: string;
  answered: number;
  configId?: string;
  softwareVersion?: string;
  rules?: Rules;
  telemetry?: { sample: string; intervalMs?: number };
}

interface Running {
  device: SimulatedDevice;
  request: DeviceRequest;
  tenantId: string;
  startedAt: string;
}

/** Devices simulated in the emulator's own process, started and stopped from the dashboard (`/_emu/devices`). */
export class DeviceRoom {
  private readonly running = new Map<string, Running>();
  private readonly starting = new Set<string>();

  constructor(private readonly ctx: EmuContext) {
    ctx.events.on(EMULATOR_STOPPING, () => void this.stopAll());
    // A reset or import may remove the endpoints they act as: the room starts empty again.
    ctx.events.on(STATE_REPLACED, () => void this.stopAll());
  }

  list(): DeviceInfo[] {
    return [...this.running.values()].map((r) => this.info(r));
  }

  async start(request: DeviceRequest, target: DeviceTarget): Promise<DeviceInfo> {
    const tenantId = request.tenantId ?? this.ctx.defaultTenantId();
    const endpoint = requireEndpoint(this.ctx, tenantId, request.endpointId);
    const key = request.endpointId;
    if (this.running.has(key) || this.starting.has(key))
      throw conflict(`A simulated device for the endpoint "${key}" is running already; stop it first.`);
    this.starting.add(key);
    try {
      // Loaded on the first simulated device: the simulator brings the MQTT client, which a start would pay for.
      const { simulateDevice } = await import('../simulator/index.js');
      const device = await simulateDevice({
        emulator: { url: target.url, mqttUrl: target.mqttUrl, adminToken: target.adminToken },
        appVersion: endpoint.appVersion.name,
        token: endpoint.token,
        endpointId: endpoint.endpointId,
        rules: request.rules,
        telemetry: request.telemetry,
        metadata: request.metadata,
        config: request.config,
        software: request.software,
        onEvent: (event) => {
          if (event.event === 'disconnected') this.forget(key);
          else if (event.event !== 'telemetry' && event.event !== 'connected') this.announce(key, event.event);
        },
      });
      const running: Running = { device, request, tenantId, startedAt: this.ctx.clock.nowIso() };
      this.running.set(key, running);
      this.announce(key, 'started');
      return this.info(running);
    } catch (err) {
      if (err instanceof SimulatorOptionsError || err instanceof DeviceConnectError) throw badRequest(err.message);
      throw err;
    } finally {
      this.starting.delete(key);
    }
  }

  async stop(endpointId: string): Promise<void> {
    const running = this.running.get(endpointId);
    if (!running) throw notFound(`No simulated device runs for the endpoint "${endpointId}".`);
    this.running.delete(endpointId);
    await running.device.stop();
    this.announce(endpointId, 'stopped');
  }

  private forget(endpointId: string): void {
    if (this.running.delete(endpointId)) this.announce(endpointId, 'stopped');
  }

  private async stopAll(): Promise<void> {
    const all = [...this.running.values()];
    this.running.clear();
    await Promise.all(all.map((r) => r.device.stop().catch(() => undefined)));
    for (const r of all) this.announce(r.request.endpointId, 'stopped');
  }

  private announce(endpointId: string, change: string): void {
    const running = this.running.get(endpointId);
    this.ctx.events.emit(DEVICE_CHANGED, { endpointId, change, ...(running ? { device: this.info(running) } : {}) });
  }

  private info({ device, request, tenantId, startedAt }: Running): DeviceInfo {
    return {
      endpointId: request.endpointId,
      tenantId,
      appVersion: device.appVersion,
      startedAt,
      answered: device.answered,
      ...(device.configId !== undefined ? { configId: device.configId } : {}),
      ...(device.softwareVersion !== undefined ? { softwareVersion: device.softwareVersion } : {}),
      ...(request.rules ? { rules: request.rules } : {}),
      ...(request.telemetry ? { telemetry: request.telemetry } : {}),
    };
  }
}

export const deviceRoomOf = (ctx: EmuContext) => runtimeOf(ctx, 'ui:devices', () => new DeviceRoom(ctx));
