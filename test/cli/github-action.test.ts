import { execa } from 'execa';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { isProcessRunning as alive } from '../../src/store/lock.js';
import { assertBuilt } from '../store/emulator-process.js';

/**
 * The composite action at the repository root, run the way the GitHub runner runs it: each step's `if:` decided,
 * `${{ ... }}` substituted in `env:` and `working-directory:`, its `run:` written to a file and run with
 * `bash --noprofile --norc -eo pipefail`, with INPUT_*, GITHUB_ENV, GITHUB_PATH, GITHUB_OUTPUT, GITHUB_ACTION_PATH,
 * RUNNER_TEMP set; what a step appends to GITHUB_ENV and GITHUB_PATH reaches the steps after it.
 */
const actionPath = fileURLToPath(new URL('../..', import.meta.url));

interface Step {
  name: string;
  id?: string;
  if?: string;
  shell: string;
  run: string;
  env?: Record<string, string>;
  'working-directory'?: string;
}
interface Action {
  inputs: Record<string, { default?: string }>;
  runs: { using: string; steps: Step[] };
}
const action = parse(readFileSync(join(actionPath, 'action.yml'), 'utf8')) as Action;

const root = mkdtempSync(join(tmpdir(), 'platform-emu-action-'));
const workspace = join(root, 'workspace');
const runnerTemp = join(root, 'runner-temp');

/** The job's state between steps: what GITHUB_ENV and GITHUB_PATH have collected. */
const job = { env: new Map<string, string>(), path: [] as string[], files: 0, workspace };

beforeAll(() => {
  assertBuilt();
  mkdirSync(workspace);
  mkdirSync(runnerTemp);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function readEnvFile(file: string): void {
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^=<]+)<<(.+)$/.exec(lines[i]);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2], i + 1);
      job.env.set(heredoc[1], lines.slice(i + 1, end).join('\n'));
      i = end;
    } else if (lines[i].includes('='))
      job.env.set(lines[i].slice(0, lines[i].indexOf('=')), lines[i].slice(lines[i].indexOf('=') + 1));
  }
}

function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && !name.startsWith('PLATFORM_EMU_')) env[name] = value;
  for (const [name, value] of job.env) env[name] = value;
  env.PATH = [...job.path, process.env.PATH].join(':');
  env.RUNNER_TEMP = runnerTemp;
  env.GITHUB_WORKSPACE = job.workspace;
  env.NO_COLOR = '1';
  return env;
}

/** One `uses: ./` of the action with these inputs. */
async function useAction(given: Record<string, unknown>, from = actionPath): Promise<Record<string, string>> {
  const inputs = new Map<string, string>();
  for (const [name, input] of Object.entries(action.inputs))
    inputs.set(name, String(given[name] ?? input.default ?? ''));
  const outputs: Record<string, string> = {};
  const expression = (text: string) =>
    text.replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_, path: string) => {
      if (path === 'github.action_path') return from;
      if (path.startsWith('inputs.')) return inputs.get(path.slice('inputs.'.length)) ?? '';
      throw new Error(`the test runner does not know ${path}`);
    });
  const condition = (text: string) => {
    const match = /^inputs\.([\w-]+) (==|!=) '([^']*)'$/.exec(text.trim());
    if (!match) throw new Error(`the test runner does not know the condition ${text}`);
    return (inputs.get(match[1]) === match[3]) === (match[2] === '==');
  };

  for (const step of action.runs.steps) {
    if (step.if && !condition(step.if)) continue;
    expect(step.shell).toBe('bash');
    const files = { env: '', path: '', output: '', script: '' };
    for (const kind of Object.keys(files) as (keyof typeof files)[]) {
      files[kind] = join(runnerTemp, `${kind}-${++job.files}`);
      writeFileSync(files[kind], kind === 'script' ? step.run : '');
    }
    const env = baseEnv();
    for (const [name, value] of inputs) env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value;
    for (const [name, value] of Object.entries(step.env ?? {})) env[name] = expression(value);
    Object.assign(env, {
      GITHUB_ENV: files.env,
      GITHUB_PATH: files.path,
      GITHUB_OUTPUT: files.output,
      GITHUB_ACTION_PATH: from,
    });
    const cwd = step['working-directory'] ? expression(step['working-directory']) : job.workspace;
    const result = await execa('bash', ['--noprofile', '--norc', '-eo', 'pipefail', files.script], {
      cwd,
      env,
      extendEnv: false,
      reject: false,
      timeout: 60_000,
    });
    expect(result.exitCode, `${step.name}\n${result.stdout}\n${result.stderr}`).toBe(0);
    readEnvFile(files.env);
    job.path.unshift(...readFileSync(files.path, 'utf8').split('\n').filter(Boolean).reverse());
    if (step.id)
      for (const line of readFileSync(files.output, 'utf8')
        .split('\n')
        .filter((l) => l.includes('=')))
        outputs[`${step.id}.${line.slice(0, line.indexOf('='))}`] = line.slice(line.indexOf('=') + 1);
  }
  return outputs;
}

/** A later `run:` step of the user's workflow. */
const userStep = (script: string, cwd = job.workspace) =>
  execa('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
    cwd,
    env: baseEnv(),
    extendEnv: false,
    reject: false,
    timeout: 30_000,
  });

describe('action.yml', () => {
  it('is a composite action with the inputs docs/ci.md names', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs)).toEqual(
      expect.arrayContaining(['stop', 'fixtures', 'import', 'auth', 'port', 'mqtt-port', 'data-dir', 'export-on-stop']),
    );
  });

  it(
    'starts an emulator for the later steps, stops it with stop: true, and the export seeds ' + 'the next job',
    async () => {
      const outputs = await useAction({ auth: 'on' });
      expect(outputs['start.url']).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(job.env.get('PLATFORM_EMU_URL')).toBe(outputs['start.url']);
      expect(job.env.get('PLATFORM_EMU_MQTT_URL')).toMatch(/^mqtt:\/\/127\.0\.0\.1:\d+$/);
      const dataDir = job.env.get('PLATFORM_EMU_DATA')!;
      const { pid } = JSON.parse(readFileSync(join(dataDir, 'emulator.lock'), 'utf8')) as { pid: number };

      // A later step: the variables are there, the token opens the authenticated API, `platform-emu` is on PATH.
      const later = await userStep(
        [
          'curl -sf -H "Authorization: Bearer $PLATFORM_EMU_TOKEN" ' +
            '"$PLATFORM_EMU_URL/epr/api/v1/endpoints" > /dev/null',
          '! curl -sf "$PLATFORM_EMU_URL/epr/api/v1/endpoints" > /dev/null',
          `platform-emu call POST /endpoints -d '{"endpointId":"ci-device","appVersion":{"name":"smart-meter-v1"}}'`,
          'echo "mqtt at $PLATFORM_EMU_MQTT_URL"',
        ].join('\n'),
      );
      expect(later.exitCode, `${later.stdout}\n${later.stderr}`).toBe(0);
      expect(later.stdout).toContain('mqtt at mqtt://127.0.0.1:');

      await useAction({ stop: 'true', 'export-on-stop': 'emulator-state.json' });
      expect(alive(pid)).toBe(false);
      expect(existsSync(join(dataDir, 'emulator.lock'))).toBe(false);
      const exported = readFileSync(join(workspace, 'emulator-state.json'), 'utf8');
      expect(exported).toContain('ci-device');

      // The next job: a fresh runner, seeded from the export.
      job.env.clear();
      job.path.length = 0;
      await useAction({ import: 'emulator-state.json', 'data-dir': join(runnerTemp, 'next') });
      const next = await userStep('platform-emu call GET /endpoints/ci-device --expect 200');
      expect(next.exitCode, `${next.stdout}\n${next.stderr}`).toBe(0);
      const nextPid = (JSON.parse(readFileSync(join(runnerTemp, 'next', 'emulator.lock'), 'utf8')) as { pid: number })
        .pid;
      await useAction({ stop: 'true', 'data-dir': join(runnerTemp, 'next') });
      expect(alive(nextPid)).toBe(false);
    },
    120_000,
  );

  it("docs/ci.md's workflow with the action runs as printed, and leaves nothing running", async () => {
    const doc = readFileSync(join(actionPath, 'docs/ci.md'), 'utf8');
    const block = /^```yaml\n(# \.github\/workflows\/firmware-action\.yml\n[\s\S]*?)^```$/m.exec(doc)![1];
    const standIn = /^```sh\n(#!\/bin\/sh\n# scripts\/firmware-test\.sh[\s\S]*?)^```$/m.exec(doc)![1];
    const steps = (parse(block) as { jobs: { firmware: { steps: Record<string, unknown>[] } } }).jobs.firmware.steps;

    // The user's repository after `npm ci`: platform-emu installed in node_modules, the stand-in test script.
    const repo = join(root, 'repo');
    mkdirSync(join(repo, 'scripts'), { recursive: true });
    mkdirSync(join(repo, 'node_modules', '.bin'), { recursive: true });
    writeFileSync(join(repo, 'scripts', 'firmware-test.sh'), standIn, { mode: 0o755 });
    symlinkSync(actionPath, join(repo, 'node_modules', 'platform-emu'));
    symlinkSync('../platform-emu/bin/platform-emu.js', join(repo, 'node_modules', '.bin', 'platform-emu'));
    job.env.clear();
    job.path.length = 0;
    job.workspace = repo;

    let used = 0;
    for (const step of steps) {
      const uses = step.uses as string | undefined;
      if (uses?.startsWith('actions/') || step.run === 'npm ci') continue;
      if (uses) {
        expect(uses).toBe('./node_modules/platform-emu');
        await useAction((step.with ?? {}) as Record<string, unknown>, join(repo, uses));
        used++;
        continue;
      }
      const result = await userStep(step.run as string, repo);
      expect(result.exitCode, `${String(step.run)}\n${result.stdout}\n${result.stderr}`).toBe(0);
    }
    expect(used).toBe(2);
    expect(existsSync(join(runnerTemp, 'platform-emu', 'emulator.lock'))).toBe(false);
    expect(JSON.parse(readFileSync(join(repo, 'emulator-state.json'), 'utf8'))).toHaveProperty('collections');
  }, 120_000);
});
