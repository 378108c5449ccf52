import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

/** Every child the bench starts, so that all of them are stopped at the end, also on Ctrl-C. */
const children = new Set();
let closing = false;

function refuseWhenClosing(label) {
  if (closing) throw new Error(`${label} not started: the bench is stopping.`);
}

const URL_PATTERN = /[a-z]+:\/\/[^\s]+/;

/**
 * Starts a process that prints a URL on stdout when it is ready (the emulator with `--quiet`, the
 * references), or whatever `ready` matches. Resolves with that (`url`), the process, the time from spawn to
 * that line, and `lines(listener)` to follow every later line of its stdout.
 */
export function startServer(
  command,
  args,
  { cwd, env, readyTimeoutMs = 60_000, label = args[0], ready = URL_PATTERN } = {},
) {
  refuseWhenClosing(label);
  const started = performance.now();
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let stderr = '';
  let inspectorUrl;
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
    inspectorUrl ??= /Debugger listening on (ws:\/\/\S+)/.exec(stderr)?.[1];
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => fail(`did not print its URL within ${readyTimeoutMs} ms`), readyTimeoutMs);
    const fail = (why) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${label} ${why}.${stderr ? `\n${stderr}` : ''}`));
    };
    const onExit = (code, signal) => fail(`exited (${signal ?? code}) before it was ready`);
    child.once('exit', onExit);
    child.once('error', (err) => fail(`could not start: ${err.message}`));
    child.stdout.on('data', function onData(chunk) {
      stdout += chunk;
      const url = ready.exec(stdout)?.[0];
      if (!url) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.off('exit', onExit);
      const readyMs = performance.now() - started;
      const lines = followLines(child.stdout, stdout.slice(stdout.indexOf(url) + url.length), !url.endsWith('\n'));
      resolve({
        url: url.replace(/\/$/, ''),
        child,
        startedAt: started,
        readyMs,
        stderr: () => stderr,
        inspectorUrl: () => inspectorUrl,
        lines,
      });
    });
  });
}

/**
 * The lines a stream prints from now on (after `rest`, what was read already, and the rest of the line that made
 * the process ready while `inReadyLine`), for one listener; until a
 * listener is set, they are dropped (the stream keeps flowing, so that a chatty child never blocks on a full pipe).
 */
function followLines(stream, rest, inReadyLine) {
  let listener;
  let partial = rest;
  const take = () => {
    const lines = partial.split('\n');
    partial = lines.pop();
    if (inReadyLine && lines.length > 0) {
      lines.shift();
      inReadyLine = false;
    }
    if (listener) for (const line of lines) if (line) listener(line);
  };
  stream.on('data', (chunk) => {
    partial += chunk;
    take();
  });
  stream.resume();
  return (onLine) => {
    listener = onLine;
    take();
  };
}

/** SIGTERM (the emulator saves its state and exits), SIGKILL if it is still there after `graceMs`. */
export function stopProcess(child, graceMs = 30_000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export async function stopAll(graceMs) {
  closing = true;
  await Promise.all([...children].map((child) => stopProcess(child, graceMs)));
}

/** Resident set size of a process in bytes (Linux /proc; `ps` elsewhere). */
export function rssOf(pid) {
  try {
    const kb = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    if (kb) return Number(kb) * 1024;
  } catch {
    // not Linux: ask ps
  }
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) * 1024;
}

/** Seconds of CPU a process has used so far (all its threads, user and system), or undefined where /proc is not. */
export function cpuSecondsOf(pid) {
  try {
    // After the command name (which may hold spaces): state is field 3, utime and stime fields 14 and 15, in ticks of
    // 1/100 s (USER_HZ, 100 on every Linux architecture Node runs on).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** Runs a process to its end (tracked like the servers) and resolves with its stdout. */
export function runToEnd(command, args, { label = args[0] } = {}) {
  refuseWhenClosing(label);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      children.delete(child);
      if (code === 0) resolve(stdout);
      else reject(new Error(`${label} failed (${signal ?? code}).${stderr ? `\n${stderr}` : ''}`));
    });
  });
}
