import chalk from 'chalk';

/** Everything `device simulate` reports; with `--json` each is one line `{ "event": ..., "time": ..., ... }`. */
export type DeviceEvent =
  | { event: 'registered'; endpointId: string; token: string; appVersion: string }
  | { event: 'connected'; token: string; appVersion: string; mqttUrl: string; endpointId?: string }
  | { event: 'metadata'; token: string; metadata: Record<string, unknown> }
  | { event: 'command'; token: string; commandType: string; commandId: number; payload: unknown }
  | { event: 'answered'; token: string; commandType: string; commandId: number; statusCode: number; reasonPhrase?: string; payload?: unknown }
  | { event: 'ignored'; token: string; commandType: string; commandId: number }
  | { event: 'telemetry'; token: string; sample: Record<string, unknown> }
  | { event: 'error'; token?: string; message: string; statusCode?: number }
  | { event: 'stopped'; devices: number; answered: number };

export type Report = (event: DeviceEvent) => void;

const compact = (value: unknown) => (value === undefined ? '' : JSON.stringify(value));

function statusColor(code: number) {
  return code >= 500 ? chalk.red : code >= 400 ? chalk.yellow : chalk.green;
}

function human(event: DeviceEvent): string {
  switch (event.event) {
    case 'registered':
      return `${chalk.green('registered')} endpoint ${chalk.bold(event.endpointId)} in ${event.appVersion}, token ${chalk.bold(event.token)}`;
    case 'connected':
      return `${chalk.green('connected')} to ${event.mqttUrl} as ${event.appVersion}${event.endpointId ? ` (endpoint ${event.endpointId})` : ''}; waiting for commands`;
    case 'metadata':
      return `${chalk.green('metadata')} published ${compact(event.metadata)}`;
    case 'command':
      return [`${chalk.cyan('command')} ${chalk.bold(event.commandType)} #${event.commandId}`, chalk.dim(compact(event.payload))].filter(Boolean).join(' ');
    case 'answered': {
      const color = statusColor(event.statusCode);
      const status = color(`${event.statusCode}${event.reasonPhrase ? ` ${event.reasonPhrase}` : ''}`);
      return [`${color('answered')} ${chalk.bold(event.commandType)} #${event.commandId}`, status, chalk.dim(compact(event.payload))].filter(Boolean).join(' ');
    }
    case 'ignored':
      return `${chalk.yellow('ignored')} ${chalk.bold(event.commandType)} #${event.commandId} (rule "ignore": never answered)`;
    case 'telemetry':
      return chalk.dim(`telemetry ${compact(event.sample)}`);
    case 'error':
      return chalk.red(`error ${event.statusCode ? `${event.statusCode} ` : ''}${event.message}`);
    case 'stopped':
      return `stopped ${event.devices} device${event.devices === 1 ? '' : 's'}; ${event.answered} command${event.answered === 1 ? '' : 's'} answered`;
  }
}

/** JSON lines for scripts, or coloured lines for people (`HH:MM:SS token  what happened`). */
export function createReporter(json: boolean, write: (line: string) => void = (line) => process.stdout.write(line)): Report {
  if (json) {
    return ({ event, ...fields }) => write(`${JSON.stringify({ event, time: new Date().toISOString(), ...fields })}\n`);
  }
  return (event) => {
    const time = chalk.dim(new Date().toTimeString().slice(0, 8));
    const who = 'token' in event && event.token ? `${chalk.magenta(event.token)}  ` : '';
    write(`${time} ${who}${human(event)}\n`);
  };
}
