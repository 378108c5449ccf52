// A worker thread of `device simulate --fleet`: connects its part of the fleet, starts it when told, reports its
// lines to the main thread (which writes them), and stops when told. See fleet-workers.ts for the other side.
import { parentPort, workerData } from 'node:worker_threads';
import { EmulatorClient } from '../../client/http-client.js';
import type { DeviceSimulation } from '../../simulator/device.js';
import { DeviceConnectError } from '../../simulator/errors.js';
import type { DeviceEvent } from '../../simulator/events.js';
import { connectFleet, startDevices } from '../../simulator/fleet.js';
import { behaviourFrom } from '../../simulator/simulate-device.js';
import { CliError } from '../shared.js';
import type { FromWorker, ToWorker, WorkerPart } from './fleet-workers.js';
import { asCliError } from './target.js';

const part = workerData as WorkerPart;
const port = parentPort!;

// The reporter picks its colours when loaded, from the environment: the same choice as the CLI's own thread.
if (part.colours) process.env.FORCE_COLOR ??= '1';
else {
  delete process.env.FORCE_COLOR;
  process.env.NO_COLOR = '1';
}
const { createReporter } = await import('./reporter.js');

const post = (message: FromWorker) => port.postMessage(message);

/** Lines of one turn of the event loop go to the main thread as one message. */
let pending = '';
const flush = () => {
  if (pending) post({ type: 'out', text: pending });
  pending = '';
};
const report = createReporter(part.json, (text) => {
  if (!pending) setImmediate(flush);
  pending += text;
});

let devices: DeviceSimulation[] = [];
let stopping: Promise<void> | undefined;
const behaviour = await behaviourFrom(part.behaviour);

function stop(): Promise<void> {
  stopping ??= (async () => {
    await Promise.allSettled(devices.map((device) => device.stop()));
    flush();
    post({ type: 'stopped', devices: devices.length, answered: devices.reduce((n, d) => n + d.answered, 0) });
  })();
  return stopping;
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'stop') void stop();
  else if (message.type === 'start' && !stopping)
    void startDevices(devices, behaviour, { first: part.first, total: part.total });
});

const onEvent = (event: DeviceEvent) => {
  report(event);
  if (event.event === 'disconnected') {
    flush();
    post({ type: 'lost' });
  }
};

try {
  const rest = part.rest ? new EmulatorClient(part.rest.url, part.rest.accessToken) : undefined;
  devices = await connectFleet({
    appVersion: part.appVersion,
    devices: part.devices,
    mqttUrl: part.mqttUrl,
    behaviour,
    registerWith: part.register ? rest : undefined,
    rest,
    login: part.login,
    tls: part.tls,
    qos: part.qos,
    onEvent,
    keepEvents: 0,
  });
  flush();
  post({ type: 'connected' });
} catch (err) {
  if (err instanceof DeviceConnectError) {
    for (const failure of err.failures) report({ event: 'error', token: failure.token, message: failure.message });
    flush();
    post({ type: 'failed' });
  } else {
    const failure = asCliError(err);
    flush();
    post({
      type: 'error',
      message: failure instanceof CliError ? failure.message : (failure.stack ?? failure.message),
      exitCode: failure instanceof CliError ? failure.exitCode : 1,
    });
  }
}
