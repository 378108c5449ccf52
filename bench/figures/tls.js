// Figure 13: a device's TLS connect plus its first KP1 round trip (MQTT over TLS, one-way, trusting the emulator's
// root certificate), as a ratio to the same over plain MQTT in the same run: what a firmware team pays for TLS here.
import { measure } from '../lib/report.js';
import { median } from '../lib/stats.js';

const ROUNDS = 30;

/** Connect, ask the time (`tsx`, a request with a reply), close: ms until the reply. */
async function connectAndAsk(Kp1Device, options) {
  const started = performance.now();
  const device = await Kp1Device.connect({ appVersion: 'smart-meter-v1', token: 'meter-001-token', ...options });
  const reply = await device.time();
  const elapsed = performance.now() - started;
  await device.close();
  if (!reply.ok) throw new Error(`tsx over ${options.mqttUrl} answered ${reply.statusCode}`);
  return elapsed;
}

export default {
  name: 'tls',
  async run() {
    // dist/ is built by `npm run bench`.
    const { startEmulator, Kp1Device } = await import('../../dist/index.js');
    const emulator = await startEmulator({ port: 0, mqttPort: 0, inMemory: true, log: () => undefined });
    try {
      const plain = [];
      const tls = [];
      // Alternating, after one warm-up of each: both see the same machine load.
      await connectAndAsk(Kp1Device, { mqttUrl: emulator.mqttUrl });
      await connectAndAsk(Kp1Device, { mqttUrl: emulator.mqttsUrl, ca: emulator.caCertificate });
      for (let i = 0; i < ROUNDS; i++) {
        plain.push(await connectAndAsk(Kp1Device, { mqttUrl: emulator.mqttUrl }));
        tls.push(await connectAndAsk(Kp1Device, { mqttUrl: emulator.mqttsUrl, ca: emulator.caCertificate }));
      }
      return [
        measure({
          id: '13',
          name: 'TLS connect + first KP1 round trip p50 (MQTTS, one-way)',
          unit: 'ms',
          value: median(tls),
          reference: median(plain),
          referenceName: 'the same over plain MQTT',
          target: { on: 'ratio', op: '<', limit: 3 },
          note: `${ROUNDS} rounds each, alternating; ECDSA P-256 server certificate from the local authority`,
        }),
      ];
    } finally {
      await emulator.stop();
    }
  },
};
