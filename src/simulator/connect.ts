import { Kp1Device } from '../client/kp1-device.js';
import type { ConnectFailure } from './errors.js';

/**
 * Connects, then asks the time: a wrong token or application version is refused at once rather than leaving a
 * device that never hears of its commands, and the connection now speaks for the endpoint (spec 4, Pushes).
 */
export async function connectKp1(mqttUrl: string, appVersion: string, token: string): Promise<Kp1Device | ConnectFailure> {
  let device: Kp1Device;
  try {
    device = await Kp1Device.connect({ mqttUrl, appVersion, token });
  } catch (err) {
    return { token, message: `Cannot connect to ${mqttUrl}: ${(err as Error).message || (err as NodeJS.ErrnoException).code}` };
  }
  const reply = await device.time().catch((err: Error) => ({ ok: false, statusCode: undefined, reasonPhrase: err.message }));
  if (reply.ok) return device;
  await device.close();
  const status = reply.statusCode ? `${reply.statusCode} ` : '';
  return { token, message: `The broker at ${mqttUrl} refused the token for ${appVersion}: ${status}${reply.reasonPhrase ?? ''}`.trim() };
}
