import chalk from '../colours.js';
import type { DeviceEvent } from '../../simulator/events.js';

/** The end of a run: how many devices ran, how many commands they answered. */
export type StoppedEvent = { event: 'stopped'; devices: number; answered: number };

/** Everything `device simulate` prints; with `--json` each is one line `{ "event": ..., "time": ..., ... }`. */
type Line =
  | Exclude<DeviceEvent, { event: 'telemetry' | 'disconnected' }>
  | { event: 'telemetry'; token: string; sample: Record<string, unknown> }
  | StoppedEvent;

export type Report = (event: DeviceEvent | StoppedEvent) => void;

const compact = (value: unknown) => (value === undefined ? '' : JSON.stringify(value));
/** ` network` after the event name for a named configuration (7/CMP use case 3). */
const namedAs = (line: { configName?: string }) => (line.configName === undefined ? '' : ` ${line.configName}`);

function statusColor(code: number) {
  return code >= 500 ? chalk.red : code >= 400 ? chalk.yellow : chalk.green;
}

function human(line: Line): string {
  switch (line.event) {
    case 'registered':
      return (
        `${chalk.green('registered')} endpoint ${chalk.bold(line.endpointId)} in ${line.appVersion}, token ` +
        `${chalk.bold(line.token)}`
      );
    case 'connected':
      return (
        `${chalk.green('connected')} to ${line.mqttUrl} as ` +
        `${line.appVersion}${line.endpointId ? ` (endpoint ${line.endpointId})` : ''}; waiting for commands`
      );
    case 'metadata':
      return `${chalk.green('metadata')} published ${compact(line.metadata)}`;
    case 'command':
      return [
        `${chalk.cyan('command')} ${chalk.bold(line.commandType)} #${line.commandId}`,
        chalk.dim(compact(line.payload)),
      ]
        .filter(Boolean)
        .join(' ');
    case 'answered': {
      const color = statusColor(line.statusCode);
      const status = color(`${line.statusCode}${line.reasonPhrase ? ` ${line.reasonPhrase}` : ''}`);
      return [
        `${color('answered')} ${chalk.bold(line.commandType)} #${line.commandId}`,
        status,
        chalk.dim(compact(line.payload)),
      ]
        .filter(Boolean)
        .join(' ');
    }
    case 'ignored':
      return (
        `${chalk.yellow('ignored')} ${chalk.bold(line.commandType)} #${line.commandId} (rule "ignore": never ` +
        `answered)`
      );
    case 'config':
      return line.configId === ''
        ? `${chalk.cyan('config')}${namedAs(line)} none offered (no configuration for this version)`
        : [
            `${chalk.cyan('config')}${namedAs(line)} ${chalk.bold(line.configId)} offered`,
            chalk.dim(compact(line.config)),
          ]
            .filter(Boolean)
            .join(' ');
    case 'config-applied':
      return `${chalk.green('config-applied')}${namedAs(line)} ${chalk.bold(line.configId)}`;
    case 'config-rejected':
      return (
        `${chalk.yellow('config-rejected')}${namedAs(line)} ${chalk.bold(line.configId)} ` +
        `${chalk.yellow(`${line.statusCode} ${line.reasonPhrase}`)}`
      );
    case 'software':
      return line.version === ''
        ? `${chalk.cyan('software')} none offered`
        : [`${chalk.cyan('software')} ${chalk.bold(line.version)} offered`, chalk.dim(compact(line.specification))]
            .filter(Boolean)
            .join(' ');
    case 'software-applied':
      return `${chalk.green('software-applied')} ${chalk.bold(line.version)}`;
    case 'software-rejected':
      return (
        `${chalk.yellow('software-rejected')} ${chalk.bold(line.version)} ` +
        `${chalk.yellow(`${line.statusCode} ${line.reasonPhrase}`)}`
      );
    case 'uploaded':
      return (
        `${chalk.green('uploaded')} ${line.name} as blob ${chalk.bold(line.blobId)} (${line.size} bytes) ` +
        `${chalk.dim(line.url)}`
      );
    case 'telemetry':
      return chalk.dim(`telemetry ${compact(line.sample)}`);
    case 'error':
      return chalk.red(`error ${line.statusCode ? `${line.statusCode} ` : ''}${line.message}`);
    case 'stopped':
      return (
        `stopped ${line.devices} device${line.devices === 1 ? '' : 's'}; ${line.answered} ` +
        `command${line.answered === 1 ? '' : 's'} answered`
      );
  }
}

/**
 * What to print for an event. A lost connection is an error; a refused telemetry sample is an error reported
 * once per device until a sample gets through again, not once per interval.
 */
function toLine(event: DeviceEvent | StoppedEvent, telemetryFailing: Map<string, string>): Line | undefined {
  if (event.event === 'disconnected') return { event: 'error', token: event.token, message: event.message };
  if (event.event !== 'telemetry') return event;
  if (event.accepted) {
    telemetryFailing.delete(event.token);
    return { event: 'telemetry', token: event.token, sample: event.sample };
  }
  const failure =
    event.statusCode === undefined ? `telemetry: ${event.message}` : `telemetry rejected: ${event.message}`;
  if (telemetryFailing.get(event.token) === failure) return undefined;
  telemetryFailing.set(event.token, failure);
  return {
    event: 'error',
    token: event.token,
    statusCode: event.statusCode,
    message: `${failure} (reported once until a sample succeeds)`,
  };
}

/** JSON lines for scripts, or coloured lines for people (`HH:MM:SS token  what happened`). */
export function createReporter(
  json: boolean,
  write: (text: string) => void = (text) => process.stdout.write(text),
): Report {
  const telemetryFailing = new Map<string, string>();
  return (event) => {
    const line = toLine(event, telemetryFailing);
    if (!line) return;
    if (json) {
      const { event: name, ...fields } = line;
      write(`${JSON.stringify({ event: name, time: new Date().toISOString(), ...fields })}\n`);
      return;
    }
    const time = chalk.dim(new Date().toTimeString().slice(0, 8));
    const who = 'token' in line && line.token ? `${chalk.magenta(line.token)}  ` : '';
    write(`${time} ${who}${human(line)}\n`);
  };
}
