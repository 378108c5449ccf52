import { Command } from 'commander';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants } from 'node:os';
import { delimiter } from 'node:path';
import { binDirForChildren } from './invocation.js';
import type { RunningEmulator } from '../index.js';
import { generatedSecretLines, readyInfo, stopEmulator, type ReadyInfo } from './lifecycle.js';
import { CliError } from './shared.js';
import { checkStartOptions, launch, startCommand, type StartOptions } from './start.js';

/** Start flags that make no sense around a command. */
const NOT_FOR_EXEC = new Set(['detach', 'detachedChild', 'json']);
/** A command that cannot be found or run, as shells say it. */
const NOT_FOUND = 127;
/** How often exec looks whether its parent is gone. */
const ORPHAN_CHECK_MS = 500;

/** What the command finds in its environment. */
function environmentFor(emulator: RunningEmulator, info: ReadyInfo, caFile: string): NodeJS.ProcessEnv {
  let token: string | undefined;
  try {
    token = emulator.token();
  } catch {
    // no tenant to sign for (--fixtures none): no PLATFORM_EMU_TOKEN
  }
  return {
    ...process.env,
    PLATFORM_EMU_URL: info.url,
    PLATFORM_EMU_MQTT_URL: info.mqttUrl,
    PLATFORM_EMU_MQTTS_URL: info.mqttsUrl,
    PLATFORM_EMU_CA: caFile,
    ...(token ? { PLATFORM_EMU_TOKEN: token } : {}),
    ...(info.adminToken ? { PLATFORM_EMU_ADMIN_TOKEN: info.adminToken } : {}),
  };
}

/** Runs the command to its end; its exit code, or 128 + the signal's number as a shell reports it. */
function runCommand(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolveExit) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: 'inherit', env });
    // SIGTERM (a cancelled CI job) goes to the command; a terminal's Ctrl-C reaches it by itself.
    const forward = (signal: NodeJS.Signals) => () => {
      if (signal !== 'SIGINT' || !process.stdin.isTTY) child.kill(signal);
    };
    const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((signal) => [signal, forward(signal)] as const);
    for (const [signal, handler] of handlers) process.on(signal, handler);
    // A wrapper that dies without forwarding its signal (npx on a cancelled CI job) leaves exec an orphan: the
    // parent's pid changes, and the command is ended as if the signal had come.
    const parent = process.ppid;
    const orphanCheck = setInterval(() => {
      if (process.ppid !== parent) child.kill('SIGTERM');
    }, ORPHAN_CHECK_MS).unref();
    const done = (code: number) => {
      clearInterval(orphanCheck);
      for (const [signal, handler] of handlers) process.off(signal, handler);
      resolveExit(code);
    };
    child.once('error', (err) => {
      process.stderr.write(
        `platform-emu exec: cannot run ${argv[0]}: ` +
          `${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'command not found' : err.message}\n`,
      );
      done(NOT_FOUND);
    });
    child.once('exit', (code, signal) => done(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)));
  });
}

async function run(this: Command, argv: string[], options: StartOptions): Promise<void> {
  // In memory unless a data directory is named (flag or PLATFORM_EMU_DATA), or PLATFORM_EMU_IN_MEMORY=0 says otherwise.
  const dataNamed = ['cli', 'env'].includes(this.getOptionValueSource('data') ?? '');
  const inMemorySource = this.getOptionValueSource('inMemory');
  if (inMemorySource === 'env' && /^(0|false|no|off)?$/i.test(process.env.PLATFORM_EMU_IN_MEMORY ?? ''))
    options.inMemory = false;
  else if (inMemorySource === undefined) options.inMemory = !dataNamed;
  await checkStartOptions(options);

  const emulator = await launch(options);
  let exitCode: number;
  // The root certificate as a file, for clients that take a path (paho's tls_set(ca_certs=...)); gone with the run.
  const caDir = await mkdtemp(join(tmpdir(), 'platform-emu-ca-'));
  try {
    const caFile = join(caDir, 'ca.pem');
    await writeFile(caFile, emulator.caCertificate);
    const info = await readyInfo(emulator, options.auth);
    if (!options.quiet)
      process.stderr.write(
        `platform-emu: emulator ready at ${info.url} (MQTT ${info.mqttUrl}); running ${argv.join(' ')}\n`,
      );
    for (const line of generatedSecretLines(emulator.generatedSecrets)) {
      process.stderr.write(`platform-emu: made a secret the import had <redacted>: ${line}\n`);
    }
    // Scripts run under exec can call `platform-emu` by its bare name: this CLI's bin directory comes first on PATH.
    const bin = binDirForChildren();
    try {
      const env = environmentFor(emulator, info, caFile);
      env.PATH = [bin.dir, env.PATH].filter(Boolean).join(delimiter);
      exitCode = await runCommand(argv, env);
    } finally {
      bin.remove();
    }
  } finally {
    await rm(caDir, { recursive: true, force: true });
    await stopEmulator(emulator, options.exportOnExit).catch((err: Error) => {
      throw new CliError(`The command ran, but the emulator did not stop cleanly: ${err.message}`);
    });
  }
  process.exit(exitCode);
}

export function execCommand(): Command {
  const command = new Command('exec')
    .description(
      "Start an emulator, run a command against it, stop the emulator, and exit with the command's exit code.",
    )
    .argument('<command...>', 'the command and its arguments (after --, or after the flags of exec)')
    .passThroughOptions();
  for (const option of startCommand().options) {
    if (NOT_FOR_EXEC.has(option.attributeName())) continue;
    if (['port', 'mqttPort', 'mqttsPort'].includes(option.attributeName())) option.default(0);
    command.addOption(option);
  }
  return command
    .addHelpText(
      'after',
      `
Defaults for a CI job: free ports (--port 0, --mqtt-port 0, --mqtts-port 0) and in memory, unless --data-dir (or
PLATFORM_EMU_DATA) names a data directory. The command finds the emulator in its environment:
PLATFORM_EMU_URL, PLATFORM_EMU_MQTT_URL, PLATFORM_EMU_MQTTS_URL, PLATFORM_EMU_CA (the root certificate's file),
PLATFORM_EMU_TOKEN (a test token of the default tenant) and, with --auth on, PLATFORM_EMU_ADMIN_TOKEN. Every ` +
        `other start flag works as in \`platform-emu start\`.

Exit code: the command's (128 + n when a signal n ended it; 127 when it cannot be run); 1 or 2 when the
emulator cannot start.

Examples:
  $ platform-emu exec -- npm test
  $ platform-emu exec --auth on --fixtures test/fixtures.json -- ./run-firmware-tests.sh
  $ platform-emu exec -- sh -c 'curl -sf "$PLATFORM_EMU_URL/_emu/health"'`,
    )
    .action(run);
}
