import type { EmuContext } from '../context.js';
import { faultAwareDevices } from './faults.js';
import { startMqtt } from './mqtt.js';
import { startMqtts } from './tls-listener.js';
import type { ServerCredentialsSource } from '../tls/server-credentials.js';

export { kp1HttpRouter } from './http.js';
export { connectionLogin } from './connection-login.js';
export { deviceConnection, deviceConnections, onlineEndpointCount, type DeviceConnection } from './sessions.js';
export { extensions } from './extensions/index.js';
export type { Kp1Extension, Kp1Resource, Kp1Request, Kp1Result } from './extension.js';

export interface Gateway {
  mqttPort: number;
  mqttUrl: string;
  mqttsPort: number;
  mqttsUrl: string;
  stop(): Promise<void>;
}

/**
 * The device side: the embedded MQTT broker speaking KP1 on `config.mqttPort` and over TLS on `config.mqttsPort`
 * (0 picks a free one), and the
 * push function the services use (`ctx.devices.push`). The HTTP binding is mounted separately (`kp1HttpRouter`).
 */
export async function startGateway(ctx: EmuContext, tls: ServerCredentialsSource): Promise<Gateway> {
  const mqtt = await startMqtt(ctx, { host: ctx.config.host, port: ctx.config.mqttPort });
  let mqtts;
  try {
    mqtts = await startMqtts(ctx, {
      host: ctx.config.host,
      port: ctx.config.mqttsPort,
      credentials: tls,
      handle: mqtt.handle,
    });
  } catch (err) {
    await mqtt.close();
    throw err;
  }
  const previous = ctx.devices;
  const push = faultAwareDevices(ctx, mqtt.devices);
  ctx.devices = push.devices;
  return {
    mqttPort: mqtt.port,
    mqttUrl: mqtt.url,
    mqttsPort: mqtts.port,
    mqttsUrl: mqtts.url,
    stop: async () => {
      ctx.devices = previous;
      push.stop();
      const mqttsClosed = mqtts.close();
      await mqtt.close();
      await mqttsClosed;
    },
  };
}
