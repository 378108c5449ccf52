import chalk from './colours.js';
import type { JournalEntry, RunningEmulator } from '../index.js';

function status(code: number): string {
  const text = code === 0 ? '---' : String(code);
  if (code === 0 || code >= 500) return chalk.red(text);
  if (code >= 400) return chalk.yellow(text);
  return code >= 300 ? chalk.cyan(text) : chalk.green(text);
}

/**
 * One journal entry as one line: time, status, method (or KP1 transport and direction), path or topic, who, latency.
 */
export function formatEntry(entry: JournalEntry): string {
  const time = entry.time.slice(11, 23);
  const how =
    entry.type === 'http'
      ? entry.method!.padEnd(6)
      : `${entry.transport!.toUpperCase()} ${entry.direction === 'out' ? '→' : '←'}`.padEnd(6);
  const what = entry.type === 'http' ? entry.path! : entry.topic!;
  const who = [entry.tenantId, entry.endpointId].filter(Boolean).join(' ');
  return (
    `${chalk.dim(time)}  ${status(entry.status)}  ${how}  ${what}${who ? `  ${chalk.dim(who)}` : ''}  ` +
    `${chalk.dim(`${entry.latencyMs} ms`)}`
  );
}

/** `start --log requests`: a line on stdout for every request and KP1 message, as it happens. */
export function printRequests(emulator: RunningEmulator): void {
  emulator.onRequest((entry) => process.stdout.write(`${formatEntry(entry)}\n`));
}
