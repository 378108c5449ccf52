import { request as httpRequest } from 'node:http';
import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { simulateDevice, type DeviceEvent } from '../../src/index.js';
import { startTestEmulator } from '../helpers/emulator.js';

/** `GET /_emu/health` with a Host header of our choosing (fetch() does not let us set it). */
function healthWithHost(url: string, host: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/_emu/health`, { headers: { host } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Every URL a health answer gives. */
const urlsOf = (health: any): string[] => [
  health.url,
  health.mqtt.url,
  health.mqtts.url,
  health.mqtts.caUrl,
  ...(health.httpsUrl ? [health.httpsUrl] : []),
  ...health.services.map((service: { url: string }) => service.url),
];

/** An address of this machine other than loopback, if it has one. */
const externalAddress = Object.values(networkInterfaces())
  .flat()
  .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;

describe('health names the emulator as the caller reached it, when it listens on every interface', async () => {
  const everywhere = await startTestEmulator({ host: '0.0.0.0', httpsPort: 0 });
  const ports = (health: any) => [health.url, health.mqtt.url, health.mqtts.url].map((url) => new URL(url).port);

  it('a caller that came by another name gets URLs with that name and the emulator’s own ports', async () => {
    const local = await healthWithHost(everywhere.url, `localhost:${everywhere.port}`);
    expect(urlsOf(local).every((url) => new URL(url).hostname === 'localhost')).toBe(true);

    // A container's name, reached through a port mapped to another number: the name carries over, the port does not.
    const named = await healthWithHost(everywhere.url, 'emulator.container:9000');
    expect(named.url).toBe(`http://emulator.container:${everywhere.port}`);
    expect(named.mqtt.url).toBe(local.mqtt.url.replace('localhost', 'emulator.container'));
    expect(named.httpsUrl).toBe(local.httpsUrl.replace('localhost', 'emulator.container'));
    expect(urlsOf(named).every((url) => new URL(url).hostname === 'emulator.container')).toBe(true);
    expect(ports(named)).toEqual(ports(local));

    const ipv6 = await healthWithHost(everywhere.url, '[fd00::2]:8080');
    expect(ipv6.mqtt.url).toBe(local.mqtt.url.replace('localhost', '[fd00::2]'));
    for (const loopback of ['127.0.0.1', `[::1]:${everywhere.port}`, 'LOCALHOST'])
      expect((await healthWithHost(everywhere.url, loopback)).mqtt.url, loopback).toBe(local.mqtt.url);
  });

  it('an emulator on one address names that address, whatever the Host', async () => {
    const named = await startTestEmulator({ allowHosts: ['emu.local'] });
    const health = await healthWithHost(named.url, 'emu.local');
    expect(health.url).toBe(named.url);
    expect(health.mqtt.url).toBe(named.mqttUrl);
  });

  it.skipIf(!externalAddress)(
    'a device simulated from elsewhere connects to the MQTT port by the same name',
    async () => {
      const url = `http://${externalAddress}:${everywhere.port}`;
      const events: DeviceEvent[] = [];
      const device = await simulateDevice({
        emulator: url,
        appVersion: 'smart-meter-v1',
        token: 'meter-001-token',
        config: false,
        software: false,
        onEvent: (event) => events.push(event),
      });
      try {
        expect(events.find((event) => event.event === 'connected')).toMatchObject({
          mqttUrl: `mqtt://${externalAddress}:${new URL(everywhere.mqttUrl).port}`,
        });
      } finally {
        await device.stop();
      }
    },
  );
});
