import { Command } from 'commander';
import { DEFAULT_EMULATOR_URL } from '../client/defaults.js';
import type { EmulatorHealth } from '../client/http-client.js';
import { faultLine } from './fault-line.js';
import { dataOption, lockOf, urlOption } from './shared.js';

/** Exit code of `status` when no emulator answers (as `systemctl status` and LSB init scripts say "not running"). */
export const NOT_RUNNING = 3;

interface StatusOptions {
  url?: string;
  data: string;
  json?: boolean;
}

export interface Status {
  running: boolean;
  ready?: boolean;
  pid?: number;
  url?: string;
  mqttUrl?: string;
  port?: number;
  mqttPort?: number;
  mqttsUrl?: string;
  mqttsPort?: number;
  dataDir?: string | null;
  inMemory?: boolean;
  auth?: string;
  version?: string;
  uptimeSeconds?: number;
  counts?: Record<string, number>;
  faults?: unknown[];
}

/** `GET /_emu/health` with a short limit: an emulator that does not answer within it is not ready. */
export async function healthOf(url: string): Promise<EmulatorHealth | undefined> {
  const { EmulatorClient } = await import('../client/http-client.js');
  try {
    const response = await new EmulatorClient(url).request('GET', '/_emu/health', { timeoutMs: 2000 });
    return response.status === 200 ? (response.json as EmulatorHealth) : undefined;
  } catch {
    return undefined;
  }
}

/** The emulator `--url` names, else the one holding the data directory's lock, else the default URL. */
async function statusOf(options: StatusOptions): Promise<Status> {
  const lock = options.url ? undefined : lockOf(options);
  const url = options.url?.replace(/\/$/, '') ?? lock?.url ?? DEFAULT_EMULATOR_URL;
  const health = await healthOf(url);
  if (!health)
    return lock
      ? { running: true, ready: false, pid: lock.pid, ...(lock.url ? { url: lock.url } : {}) }
      : { running: false };
  const mqtt = (health.mqtt ?? {}) as { url?: string; port?: number };
  const mqtts = (health.mqtts ?? {}) as { url?: string; port?: number };
  const startedAt = typeof health.startedAt === 'string' ? Date.parse(health.startedAt) : NaN;
  return {
    running: true,
    ready: true,
    pid: typeof health.pid === 'number' ? health.pid : lock?.pid,
    url,
    mqttUrl: mqtt.url,
    port: Number(new URL(url).port),
    mqttPort: mqtt.port,
    mqttsUrl: mqtts.url,
    mqttsPort: mqtts.port,
    dataDir: (health.dataDir as string | null | undefined) ?? null,
    inMemory: health.inMemory as boolean | undefined,
    auth: health.auth,
    version: health.version as string | undefined,
    uptimeSeconds: Number.isNaN(startedAt) ? undefined : Math.max(0, Math.round((Date.now() - startedAt) / 1000)),
    counts: Object.fromEntries(
      ((health.services as Array<{ name: string; records: number }> | undefined) ?? []).map((s) => [s.name, s.records]),
    ),
    faults: (health.faults as unknown[] | undefined) ?? [],
  };
}

function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h > 0 ? `${h}h ${m}m` : m > 0 ? `${m}m ${s}s` : `${s}s`;
}

function describe(status: Status, options: StatusOptions): string {
  if (!status.running)
    return (
      `No emulator is running (none holds ` +
      `${options.data}${options.url ? `, none answers at ${options.url}` : ''}).`
    );
  if (!status.ready)
    return (
      `An emulator (pid ${status.pid}) holds ${options.data} but does not ` +
      `answer${status.url ? ` at ${status.url}` : ''} yet.`
    );
  const counts = Object.entries(status.counts ?? {}).map(([service, n]) => `${service} ${n}`);
  return [
    `platform-emu ${status.version ?? ''} running (pid ` +
      `${status.pid}${status.uptimeSeconds !== undefined ? `, up ${duration(status.uptimeSeconds)}` : ''}, ` +
      `auth ${status.auth})`,
    `  REST     ${status.url}`,
    `  MQTT     ${status.mqttUrl}`,
    ...(status.mqttsUrl ? [`  MQTTS    ${status.mqttsUrl}`] : []),
    `  State    ${status.dataDir ?? 'in memory'}`,
    `  Records  ${counts.join(', ') || 'none'}`,
    `  Faults   ` +
      `${
        status.faults?.length
          ? status.faults.map((f) => faultLine(f as Parameters<typeof faultLine>[0], '  ')).join('\n           ')
          : 'none'
      }`,
  ].join('\n');
}

async function run(options: StatusOptions): Promise<void> {
  const status = await statusOf(options);
  process.stdout.write(`${options.json ? JSON.stringify(status, null, 2) : describe(status, options)}\n`);
  if (!status.ready) process.exitCode = NOT_RUNNING;
}

export function statusCommand(): Command {
  return new Command('status')
    .description('Is an emulator running? Its pid, URLs, uptime, records per service and active faults.')
    .option(
      '--json',
      'print it as JSON: { running, pid, url, mqttUrl, mqttsUrl, port, mqttPort, mqttsPort, dataDir, ' +
        'uptimeSeconds, counts, faults, ... }',
    )
    .addOption(dataOption())
    .addOption(urlOption())
    .addHelpText(
      'after',
      `
Exit codes: 0 when an emulator answers, 3 when none runs (or it does not answer yet), 2 for usage errors.
The emulator is the one --url names, else the one holding the lock of --data-dir, else ${DEFAULT_EMULATOR_URL}.

Examples:
  $ platform-emu status
  $ platform-emu status --json | jq .counts
  $ platform-emu status --data-dir /tmp/emu >/dev/null && echo running`,
    )
    .action(run);
}
