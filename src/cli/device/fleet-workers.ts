import { Worker } from 'node:worker_threads';
import type { DeviceIdentity, MqttLogin, TlsLogin } from '../../simulator/fleet.js';
import type { BehaviourOptions } from '../../simulator/simulate-device.js';
import { CliError } from '../shared.js';

/** What a worker thread runs: its part of the fleet, and everything the CLI resolved once for the whole fleet. */
export interface WorkerPart {
  appVersion: string;
  devices: DeviceIdentity[];
  /** Where this part starts in the whole fleet, and the fleet's size: the devices' samples spread over the interval. */
  first: number;
  total: number;
  mqttUrl: string;
  /** Without `decide` (the interactive prompt stays in one thread); the telemetry spec as text. */
  behaviour: Omit<BehaviourOptions, 'decide'>;
  login?: MqttLogin;
  tls?: TlsLogin;
  qos: 0 | 1;
  register: boolean;
  /** The emulator's REST side and the bearer token the CLI already holds (registering, uploading). */
  rest?: { url: string; accessToken?: string };
  json: boolean;
  /** Whether the CLI's own output is coloured: a worker's lines look the same. */
  colours: boolean;
}

/** From the main thread to a worker. */
export type ToWorker = { type: 'start' } | { type: 'stop' };

/** From a worker to the main thread. */
export type FromWorker =
  /** Lines for stdout, exactly as the reporter wrote them. */
  | { type: 'out'; text: string }
  /** Every device of the part is connected (registered first, when asked), none started. */
  | { type: 'connected' }
  /** A device could not connect; its error lines were sent; the part's other devices are closed. */
  | { type: 'failed' }
  /** Something else went wrong before the devices connected (registering refused, the emulator unreachable). */
  | { type: 'error'; message: string; exitCode: number }
  /** A device's connection was lost (its error line was sent): the whole fleet stops, exit 1. */
  | { type: 'lost' }
  | { type: 'stopped'; devices: number; answered: number };

type Phase = { type: 'connected' } | { type: 'failed' } | { type: 'error'; message: string; exitCode: number };

export interface Counts {
  devices: number;
  answered: number;
}

/** A fleet that runs (here or in workers): `stop()` disconnects every device and tells what `stopped` reports. */
export interface RunningFleet {
  stop(): Promise<Counts>;
}

/** The fleet could not start; each failure was reported as an `error` line by the part it happened in. */
export class FleetStartFailed extends Error {}

const WORKER = new URL('./fleet-worker.js', import.meta.url);

/** One worker thread and its part of the fleet, as the main thread sees it. */
class FleetWorker {
  private readonly worker: Worker;
  /** How connecting ended: connected, failed (reported), or an error to show. */
  readonly phase: Promise<Phase>;
  private readonly stopped: Promise<Counts>;
  private stopping: Promise<Counts> | undefined;

  constructor(part: WorkerPart, write: (text: string) => void, onLost: () => void) {
    this.worker = new Worker(WORKER, { workerData: part, stdout: false, stderr: false });
    let settlePhase!: (phase: Phase) => void;
    let settleStopped!: (counts: Counts) => void;
    let connecting = true;
    this.phase = new Promise((resolve) => (settlePhase = resolve));
    void this.phase.then(() => (connecting = false));
    this.stopped = new Promise((resolve) => (settleStopped = resolve));
    this.worker.on('message', (message: FromWorker) => {
      if (message.type === 'out') write(message.text);
      else if (message.type === 'lost') onLost();
      else if (message.type === 'stopped') settleStopped(message);
      else settlePhase(message);
    });
    // A worker that fails on its own (a bug) or ends before it was stopped: the fleet stops, exit 1.
    const ended = (why: string) => {
      // While connecting, the reason is the CLI's error message; afterwards it goes to stderr beside the lines.
      if (connecting) settlePhase({ type: 'error', message: why, exitCode: 1 });
      else process.stderr.write(`${why}\n`);
      settleStopped({ devices: part.devices.length, answered: 0 });
      onLost();
    };
    this.worker.on('error', (err) => ended(`A worker thread of the fleet failed: ${err.stack ?? err.message}`));
    this.worker.on('exit', (code) => ended(`A worker thread of the fleet ended (exit code ${code}).`));
  }

  /** Disconnects the part's devices (started or not), then ends the thread. */
  stop(): Promise<Counts> {
    this.stopping ??= (async () => {
      this.post({ type: 'stop' });
      const counts = await this.stopped;
      this.worker.removeAllListeners('exit');
      await this.worker.terminate();
      return counts;
    })();
    return this.stopping;
  }

  post(message: ToWorker): void {
    this.worker.postMessage(message);
  }
}

/**
 * Spreads the fleet over `count` worker threads in even parts; starts the devices only once every part is connected,
 * as one thread does. When a part fails to connect, every part is closed and no device starts.
 */
export async function startWorkers(
  common: Omit<WorkerPart, 'devices' | 'first' | 'total'>,
  plan: DeviceIdentity[],
  count: number,
  onLost: () => void,
  write: (text: string) => void = (text) => process.stdout.write(text),
): Promise<RunningFleet> {
  const workers: FleetWorker[] = [];
  for (let i = 0; i < count; i++) {
    const first = Math.floor((i * plan.length) / count);
    const devices = plan.slice(first, Math.floor(((i + 1) * plan.length) / count));
    workers.push(new FleetWorker({ ...common, devices, first, total: plan.length }, write, onLost));
  }
  const phases = await Promise.all(workers.map((worker) => worker.phase));
  if (phases.some((phase) => phase.type !== 'connected')) {
    await Promise.all(workers.map((worker) => worker.stop()));
    const error = phases.find((phase) => phase.type === 'error');
    if (error?.type === 'error') throw new CliError(error.message, error.exitCode);
    throw new FleetStartFailed('The fleet could not connect.');
  }
  for (const worker of workers) worker.post({ type: 'start' });
  return {
    async stop() {
      const counts = await Promise.all(workers.map((worker) => worker.stop()));
      return {
        devices: counts.reduce((n, c) => n + c.devices, 0),
        answered: counts.reduce((n, c) => n + c.answered, 0),
      };
    },
  };
}
