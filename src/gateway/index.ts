import type { EmuContext } from '../context.js';
import { faultAwareDevices } from './faults.js';
import { startMqtt } from './mqtt.js';

export { kp1HttpRouter } from './http.js';
export { deviceConnection, deviceConnections, onlineEndpointCount, type DeviceConnection } from './sessions.js';
export { extensions } from './extensions/index.js';
export type { Kp1Extension, Kp1Resource, Kp1Request, Kp1Result } from './extension.js';

export interface Gateway {
  mqttPort: number;
  mqttUrl: string;
  stop(): Promise<void>;
}

/**
 * The device side: the embedded MQTT broker speaking KP1 on `config.mqttPort` (0 picks a free one), and the
 * push function the services use (`ctx.devices.push`). The HTTP binding is mounted separately (`kp1HttpRouter`).
 */
export async function startGateway(ctx: EmuContext): Promise<Gateway> {
  const mqtt = await startMqtt(ctx, { host: ctx.config.host, port: ctx.config.mqttPort });
  const previous = ctx.devices;
  const push = faultAwareDevices(ctx, mqtt.devices);
  ctx.devices = push.devices;
  return {
    mqttPort: mqtt.port,
    mqttUrl: mqtt.url,
    stop: async () => {
      ctx.devices = previous;
      push.stop();
      await mqtt.close();
    },
  };
}
