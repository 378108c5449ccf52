import { readFile } from 'node:fs/promises';
import type { DeviceSimulation } from '../../simulator/device.js';
import { DeviceConnectError, SimulatorOptionsError } from '../../simulator/errors.js';
import { startFleet, type TlsLogin } from '../../simulator/fleet.js';
import { behaviourFrom, mqttLogin, type BehaviourOptions } from '../../simulator/simulate-device.js';
import { capHeapGrowth } from '../heap-growth.js';
import { coloursWanted } from '../terminal.js';
import { FleetStartFailed, type RunningFleet } from './fleet-workers.js';
import { planFleet, workerCount } from './plan.js';
import { createReporter, type Report } from './reporter.js';
import type { SimulateOptions } from './options.js';
import { asCliError, connectTarget, mqttUrlOf } from './target.js';

/** Resolves with the exit code: 0 after SIGINT/SIGTERM, 1 when a connection fails or is lost. */
async function simulate(options: SimulateOptions, report: Report): Promise<number> {
  const plan = planFleet(options);
  const workers = workerCount(options, plan.length);
  // The flag is the process's: the worker threads' heaps are capped as well.
  capHeapGrowth();
  let fleet: RunningFleet | undefined;
  let exitCode: number | undefined;
  let finish: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => (finish = resolve));
  const stopAll = (running: RunningFleet) =>
    void running.stop().then((counts) => {
      report({ event: 'stopped', ...counts });
      finish(exitCode!);
    });
  const requestStop = (code: number) => {
    if (exitCode !== undefined) return;
    exitCode = code;
    if (fleet) stopAll(fleet);
  };
  // Installed before connecting, so that a signal is never the default kill; a second signal exits at once.
  const onSignal = () => (exitCode !== undefined ? process.exit(1) : requestStop(0));
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);

  const inputs = behaviourInputs(options);
  const behaviour = await behaviourFrom({
    ...inputs,
    // Ctrl-C inside a prompt reaches the prompt, not the process: it stops the simulation all the same.
    decide: options.interactive
      ? (await import('./interactive.js')).interactiveDecider(() => requestStop(0))
      : undefined,
  });
  const login = mqttLogin(options);
  const tls = await tlsFiles(options);
  const needsTarget =
    options.register || options.upload !== undefined || !options.mqttUrl || (tls !== undefined && tls.ca === undefined);
  const target = needsTarget ? await connectTarget(options) : undefined;
  const mqttUrl = mqttUrlOf(target, options, tls !== undefined);
  if (tls && tls.ca === undefined)
    tls.ca = (await target!.client.request('GET', '/_emu/tls/ca.pem')).raw.toString('utf8');
  const onEvent: Report = (event) => {
    report(event);
    if (event.event === 'disconnected') requestStop(1);
  };
  try {
    if (workers > 1) {
      const { startWorkers } = await import('./fleet-workers.js');
      const rest = target && { url: target.client.baseUrl, accessToken: target.client.accessToken };
      const common = { appVersion: options.appVersion, mqttUrl, behaviour: inputs, login, tls, qos: options.qos, rest };
      fleet = await startWorkers(
        {
          ...common,
          register: Boolean(options.register),
          json: Boolean(options.json),
          colours: coloursWanted(process.stdout),
        },
        plan,
        workers,
        () => requestStop(1),
      );
    } else {
      const devices = await startFleet({
        appVersion: options.appVersion,
        devices: plan,
        mqttUrl,
        behaviour,
        registerWith: options.register ? target!.client : undefined,
        rest: target?.client,
        login,
        tls,
        qos: options.qos,
        onEvent,
        keepEvents: 0,
      });
      fleet = inThisThread(devices);
    }
  } catch (err) {
    if (err instanceof FleetStartFailed) return 1;
    if (!(err instanceof DeviceConnectError)) throw err;
    for (const failure of err.failures) report({ event: 'error', token: failure.token, message: failure.message });
    return 1;
  }
  if (exitCode !== undefined) stopAll(fleet);
  return finished;
}

/** The flags that say how each device behaves, as the simulator takes them (and a worker thread gets them). */
function behaviourInputs(options: SimulateOptions): Omit<BehaviourOptions, 'decide'> {
  return {
    rules: options.rules,
    metadata: options.metadata,
    telemetry: options.telemetry ? { sample: options.telemetry, intervalMs: options.interval } : undefined,
    config: options.rejectConfig ? 'reject' : options.config,
    configNames: options.configName,
    software: options.rejectSoftware ? 'reject' : options.software,
    upload: options.upload,
  };
}

function inThisThread(devices: DeviceSimulation[]): RunningFleet {
  return {
    async stop() {
      await Promise.allSettled(devices.map((d) => d.stop()));
      return { devices: devices.length, answered: devices.reduce((n, d) => n + d.answered, 0) };
    },
  };
}

export async function runSimulation(options: SimulateOptions): Promise<void> {
  const report = createReporter(Boolean(options.json));
  const code = await simulate(options, report).catch((err: unknown) => {
    throw asCliError(err);
  });
  // MQTT and HTTP keep-alive sockets are closed; exit now rather than wait for idle timers.
  process.exit(code);
}

/** `--tls` and its PEM files, read before any connection: a wrong path is an options error. */
async function tlsFiles(options: SimulateOptions): Promise<TlsLogin | undefined> {
  if (!options.tls) {
    if (options.ca ?? options.cert ?? options.key)
      throw new SimulatorOptionsError('--ca, --cert and --key are for MQTT over TLS: add --tls.');
    return undefined;
  }
  if ((options.cert === undefined) !== (options.key === undefined))
    throw new SimulatorOptionsError('--cert needs --key, and --key needs --cert.');
  const read = async (path: string | undefined, flag: string) => {
    if (path === undefined) return undefined;
    try {
      return await readFile(path, 'utf8');
    } catch (err) {
      throw new SimulatorOptionsError(`Cannot read ${flag} ${path}: ${(err as Error).message}`);
    }
  };
  const [ca, cert, key] = await Promise.all([
    read(options.ca, '--ca'),
    read(options.cert, '--cert'),
    read(options.key, '--key'),
  ]);
  return { ca, cert, key };
}
