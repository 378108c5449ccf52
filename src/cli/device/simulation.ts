import { Kp1Device } from '../../client/kp1-device.js';
import { registerEndpoint } from '../../client/endpoints.js';
import { inBatches, planFleet, type DeviceIdentity } from './fleet.js';
import { interactiveDecider } from './interactive.js';
import { createReporter, type Report } from './reporter.js';
import { loadRules } from './rules.js';
import { SimulatedDevice, type DeviceBehaviour } from './simulated-device.js';
import type { SimulateOptions } from './simulate.js';
import { asCliError, connectTarget, mqttUrlOf, type Target } from './target.js';

/** Opening connections at once is fast; a bound keeps a large fleet from flooding the broker. */
const CONNECT_CONCURRENCY = 20;

async function registerAll(target: Target, options: SimulateOptions, plan: DeviceIdentity[], report: Report): Promise<DeviceIdentity[]> {
  return inBatches(plan, CONNECT_CONCURRENCY, async (identity) => {
    const endpoint = await registerEndpoint(target.client, { appVersion: options.appVersion, token: identity.token, endpointId: identity.endpointId }).catch(
      (err: unknown) => {
        throw asCliError(err);
      },
    );
    report({ event: 'registered', endpointId: endpoint.endpointId, token: endpoint.token, appVersion: endpoint.appVersion });
    return { token: endpoint.token, endpointId: endpoint.endpointId };
  });
}

interface ConnectFailure {
  token: string;
  message: string;
}

/**
 * Connects, then asks the time: a wrong token or application version is refused at once rather than leaving a
 * device that never hears of its commands, and the connection now speaks for the endpoint (spec 4, Pushes).
 */
async function connectOne(mqttUrl: string, appVersion: string, token: string): Promise<Kp1Device | ConnectFailure> {
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

/** Resolves with the exit code: 0 after SIGINT/SIGTERM, 1 when a connection fails or is lost. */
async function simulate(options: SimulateOptions, report: Report): Promise<number> {
  const plan = planFleet(options);
  const rules = options.rules ? await loadRules(options.rules) : undefined;
  const target = options.register || !options.mqttUrl ? await connectTarget(options) : undefined;
  const mqttUrl = mqttUrlOf(target, options);
  const identities = options.register ? await registerAll(target!, options, plan, report) : plan;

  const connections = await inBatches(identities, CONNECT_CONCURRENCY, ({ token }) => connectOne(mqttUrl, options.appVersion, token!));
  const connected = connections.filter((c): c is Kp1Device => c instanceof Kp1Device);
  const failures = connections.filter((c): c is ConnectFailure => !(c instanceof Kp1Device));
  if (failures.length > 0) {
    for (const failure of failures) report({ event: 'error', token: failure.token, message: failure.message });
    await Promise.all(connected.map((device) => device.close()));
    return 1;
  }

  let requestStop = (_code: number) => undefined as void;
  const behaviour: DeviceBehaviour = {
    rules,
    // Ctrl-C inside a prompt reaches the prompt, not the process: it stops the simulation all the same.
    decide: options.interactive ? interactiveDecider(() => requestStop(0)) : undefined,
    metadata: options.metadata,
    telemetry: options.telemetry ? { makeSample: options.telemetry, intervalMs: options.interval } : undefined,
  };
  const devices = connected.map((device, i) => new SimulatedDevice(device, behaviour, report, identities[i].endpointId));
  const finished = new Promise<number>((resolve) => {
    let stopping = false;
    requestStop = (code: number) => {
      if (stopping) return;
      stopping = true;
      void Promise.allSettled(devices.map((d) => d.stop())).then(() => {
        report({ event: 'stopped', devices: devices.length, answered: devices.reduce((n, d) => n + d.answered, 0) });
        resolve(code);
      });
    };
    // The listeners stay: a second signal while stopping exits at once.
    const onSignal = () => (stopping ? process.exit(1) : requestStop(0));
    process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
    connected.forEach((device) =>
      device.once('close', () => {
        report({ event: 'error', token: device.token, message: `The connection to ${mqttUrl} was lost (is the emulator still running?).` });
        requestStop(1);
      }),
    );
  });
  for (const [i, device] of devices.entries()) {
    report({ event: 'connected', token: device.token, appVersion: options.appVersion, mqttUrl, endpointId: identities[i].endpointId });
  }
  await Promise.all(devices.map((device) => device.start()));
  return finished;
}

export async function runSimulation(options: SimulateOptions): Promise<void> {
  const report = createReporter(Boolean(options.json));
  const code = await simulate(options, report).catch((err: unknown) => {
    throw asCliError(err);
  });
  // MQTT and HTTP keep-alive sockets are closed; exit now rather than wait for idle timers.
  process.exit(code);
}
