import { cliName } from './invocation.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { START_DEFAULTS } from '../client/defaults.js';
import { readEmulatorLock } from '../client/emulator-lock.js';
import { LOG_FILE, type ReadyInfo } from './lifecycle.js';
import { CliError } from './shared.js';
import type { StartOptions } from './start-options.js';

/** Longest wait for a detached emulator to be ready (a large state takes a while to load). */
const READY_TIMEOUT_MS = 120_000;
const TAIL_LINES = 20;

function lastLines(file: string): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-TAIL_LINES).join('\n');
  } catch {
    return '';
  }
}

/** This very command for the child: the same flags (and environment) without `--detach`. */
function childArgs(): string[] {
  return [
    ...process.execArgv,
    process.argv[1],
    ...process.argv.slice(2).filter((arg) => arg !== '--detach'),
    '--detached-child',
  ];
}

/** Resolves with the child's ready line; rejects (the child stopped) when it exits or is not ready in time. */
function readiness(child: ChildProcess, logFile: string): Promise<ReadyInfo> {
  return new Promise((resolveReady, reject) => {
    const fail = (message: string, exitCode = 1) => {
      clearTimeout(timer);
      const tail = lastLines(logFile);
      reject(
        new CliError(
          `${message}${tail ? `. Last lines of ${logFile}:\n${tail}` : ` (${logFile} is empty).`}`,
          exitCode,
        ),
      );
    };
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      fail(`The emulator (pid ${child.pid}) was not ready after ${READY_TIMEOUT_MS / 1000} s and was stopped`);
    }, READY_TIMEOUT_MS);
    child.once('message', (info) => {
      clearTimeout(timer);
      resolveReady(info as ReadyInfo);
    });
    child.once('exit', (code, signal) =>
      fail(`The emulator could not start (it exited with ${code ?? signal})`, code || 1),
    );
    child.once('error', (err) => fail(`The emulator could not be started: ${err.message}`));
    // Interrupted while waiting: the half-started emulator goes too.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        child.kill('SIGTERM');
        process.exit(130);
      });
    }
  });
}

function describe(info: ReadyInfo, dir: string, logFile: string): string {
  const target = dir === resolve(START_DEFAULTS.dataDir) ? '' : ` --data-dir ${dir}`;
  return [
    `platform-emu running in the background (pid ${info.pid}) at ${info.url}`,
    `  MQTT   ${info.mqttUrl}`,
    ...(info.mqttsUrl ? [`  MQTTS  ${info.mqttsUrl}`] : []),
    `  State  ${info.dataDir ?? `in memory (nothing is kept; its lock and log are in ${dir})`}`,
    `  Log    ${logFile}`,
    `  Stop   ${cliName()} stop${target}`,
  ].join('\n');
}

/**
 * `start --detach`: the same start in a child process of its own session (the terminal closing does not end it),
 * output to the data directory's log; returns once the child says it is ready, or fails with the log's last lines.
 */
export async function startDetached(options: StartOptions): Promise<void> {
  const dir = resolve(options.data);
  const running = readEmulatorLock(dir);
  if (running) {
    throw new CliError(
      `An emulator already runs on ${dir} (pid ${running.pid}${running.url ? ` at ${running.url}` : ''}): ` +
        `\`${cliName()} stop --data-dir ${dir}\` stops it.`,
    );
  }
  mkdirSync(dir, { recursive: true });
  const logFile = join(dir, LOG_FILE);
  const log = openSync(logFile, 'w', 0o600);
  const child = spawn(process.execPath, childArgs(), { detached: true, stdio: ['ignore', log, log, 'ipc'] });
  closeSync(log);
  const info = await readiness(child, logFile);
  if (child.connected) child.disconnect();
  child.unref();
  if (options.json) process.stdout.write(`${JSON.stringify({ ...info, logFile })}\n`);
  else if (options.quiet) process.stdout.write(`${info.url}\n`);
  else process.stdout.write(`${describe(info, dir, logFile)}\n`);
}
