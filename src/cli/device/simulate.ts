import { Command, Option } from 'commander';
import { Kp1Device, registerEndpoint } from '../../client/index.js';
import { collect, parsePositiveInt } from '../shared.js';
import { inBatches, planFleet, type DeviceIdentity } from './fleet.js';
import { interactiveDecider } from './interactive.js';
import { createReporter, type Report } from './reporter.js';
import { loadRules } from './rules.js';
import { SimulatedDevice, type DeviceBehaviour } from './simulated-device.js';
import { asCliError, connectTarget, mqttUrlOf, parseJsonObject, targetOptions, type Target, type TargetOptions } from './target.js';
import { parseTelemetrySpec, type SampleMaker } from './telemetry.js';

interface SimulateOptions extends TargetOptions {
  appVersion: string;
  token?: string[];
  register?: boolean;
  id?: string;
  fleet?: number;
  rules?: string;
  interactive?: boolean;
  metadata?: Record<string, unknown>;
  telemetry?: SampleMaker;
  interval: number;
  json?: boolean;
  mqttUrl?: string;
}

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

async function run(options: SimulateOptions): Promise<void> {
  const report = createReporter(Boolean(options.json));
  const code = await simulate(options, report).catch((err: unknown) => {
    throw asCliError(err);
  });
  // MQTT and HTTP keep-alive sockets are closed; exit now rather than wait for idle timers.
  process.exit(code);
}

export function simulateCommand(): Command {
  const command = new Command('simulate')
    .description('Connect as one or more devices over MQTT (KP1) and answer commands: echo by default, or per rules, or interactively.')
    .requiredOption('--app-version <name>', 'application version of the device(s)')
    .addOption(new Option('--token <token>', 'endpoint token (repeatable or comma-separated; with --fleet, a pattern like meter-{nnn}-token)').argParser(collect))
    .option('--register', 'register the device(s) first (tokens and ids generated unless --token/--id are given)')
    .option('--id <endpointId>', 'endpoint id to register (with --register; with --fleet, a pattern like meter-{nnn})')
    .addOption(new Option('--fleet <n>', 'simulate n devices from this process').argParser(parsePositiveInt))
    .option('--rules <file>', 'JSON rules: per command type the status code, reason, payload (template) and delay (see docs/cli.md)')
    .option('--interactive', 'ask what to answer for each command')
    .addOption(new Option('--metadata <json>', 'metadata (JSON object) published on connect (epmx update/keys)').argParser(parseJsonObject))
    .addOption(new Option('--telemetry <spec>', 'data samples to publish (dcx json), like "temperature=20..25,state=on|off,n=seq"').argParser(parseTelemetrySpec))
    .addOption(new Option('--interval <ms>', 'milliseconds between telemetry samples').default(1000).argParser(parsePositiveInt))
    .option('--json', 'one JSON line per event on stdout (registered, connected, metadata, command, answered, ignored, telemetry, error, stopped)')
    .addOption(new Option('--mqtt-url <url>', "MQTT URL of the KP1 broker (default: the emulator's, from /_emu/health)").env('PLATFORM_EMU_MQTT_URL'));
  for (const option of targetOptions()) command.addOption(option);
  return command
    .addHelpText(
      'after',
      `
Runs until Ctrl-C (exit 0); exits 1 when a connection fails or is lost, 2 for usage errors (also a bad --rules file).

Examples:
  $ platform-emu device simulate --app-version smart-meter-v1 --token meter-001-token
  $ platform-emu device simulate --app-version smart-meter-v1 --token meter-001-token --rules rules.json --json
  $ platform-emu device simulate --app-version smart-meter-v1 --token meter-002-token --interactive
  $ platform-emu device simulate --app-version smart-meter-v1 --fleet 3 --token 'meter-{nnn}-token'
  $ platform-emu device simulate --app-version tracker-v1 --register --fleet 50 --telemetry 'lat=52.0..52.6,lon=13.0..13.8' --interval 5000
  $ platform-emu device simulate --app-version smart-meter-v1 --token meter-003-token --metadata '{"firmware":"1.2.0"}'`,
    )
    .action(run);
}
