import { execa, type ResultPromise } from 'execa';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../store/emulator-process.js';

/**
 * The published package as a consumer gets it: one `npm pack`, one install into an empty project, then
 * `npx platform-emu start`. The install is offline: the consumer's lock file is the project's own, cut to the
 * runtime dependencies, so `npm ci --offline` takes every package from the npm cache that installed this checkout.
 * Where that cache is missing, `npm install --prefer-offline` asks the registry; with no registry the test is
 * skipped and says why. The pack skips `prepack` (the build): the suite runs on a built checkout already.
 */
const project = fileURLToPath(new URL('../..', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'platform-emu-pack-'));
const consumer = join(root, 'consumer');
let files: string[] = [];
let tarball = '';
let installError = '';

const npm = (args: string[], cwd: string) =>
  execa('npm', [...args, '--no-audit', '--no-fund'], { cwd, reject: false, timeout: 240_000 });

beforeAll(async () => {
  assertBuilt();
  const pack = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', root], { cwd: project });
  const [packed] = JSON.parse(pack.stdout) as [{ filename: string; files: { path: string }[] }];
  files = packed.files.map((f) => f.path);
  tarball = `file:../${packed.filename}`;

  const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; devOptional?: boolean; link?: boolean; [key: string]: unknown }>;
  };
  const own = lock.packages[''];
  const packages: Record<string, unknown> = {
    '': { name: 'consumer', dependencies: { 'platform-emu': tarball } },
    'node_modules/platform-emu': {
      version: own.version,
      resolved: tarball,
      dependencies: own.dependencies,
      bin: own.bin,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages))
    if (path && !entry.dev && !entry.devOptional && !entry.link) packages[path] = entry;
  mkdirSync(consumer);
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, dependencies: { 'platform-emu': tarball } }),
  );
  writeFileSync(join(consumer, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, requires: true, packages }));

  const offline = await npm(['ci', '--offline'], consumer);
  if (offline.exitCode === 0) return;
  rmSync(join(consumer, 'package-lock.json'));
  const online = await npm(['install', '--prefer-offline'], consumer);
  if (online.exitCode === 0) return;
  installError = /E(NOTFOUND|AI_AGAIN|CONNREFUSED|CONNRESET|TIMEDOUT|NOTCACHED)|network/i.test(online.stderr)
    ? 'skipped: the npm cache lacks the runtime dependencies and the registry is unreachable ' +
      `(${online.stderr.split('\n')[0]})`
    : `npm install failed:\n${online.stderr}`;
}, 300_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the published package', () => {
  it('holds built code with declarations and source maps, the fixtures, the dashboard, the docs and the action', () => {
    for (const file of [
      'bin/platform-emu.js',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/index.js.map',
      'dist/cli/main.js',
      'dist/bundle/main.js',
      'dist/bundle/main.js.map',
      'dist/bundle/THIRD-PARTY-LICENSES.txt',
      'fixtures/default.json',
      'ui/index.html',
      'docs/ci.md',
      'action.yml',
      'README.md',
      'package.json',
    ])
      expect(files).toContain(file);
  });

  it('holds no tests, bench or TypeScript sources', () => {
    expect(files.filter((f) => /^(test|bench|src|scripts)\//.test(f))).toEqual([]);
    // TypeScript only as declarations, and as the docs' own example files
    expect(files.filter((f) => /\.[cm]?tsx?$/.test(f) && !/\.d\.ts$/.test(f) && !f.startsWith('docs/'))).toEqual([]);
    expect(files.filter((f) => /^(tsconfig[^/]*\.json|vitest\.config\.\w+|\.env)$/.test(f))).toEqual([]);
  });

  it('ships source maps that carry their TypeScript sources (the package holds no src/)', () => {
    const maps = files.filter((f) => f.endsWith('.js.map'));
    const sourcesOf = (map: string) =>
      JSON.parse(readFileSync(join(project, map), 'utf8')) as { sources: string[]; sourcesContent?: string[] };
    const [bundled, built] = [
      maps.filter((f) => f.startsWith('dist/bundle/')),
      maps.filter((f) => !f.startsWith('dist/bundle/')),
    ];
    expect(built.length).toBeGreaterThan(100);
    const withoutSources = built.filter((map) => {
      const { sources, sourcesContent } = sourcesOf(map);
      return sourcesContent?.length !== sources.length || sourcesContent.some((text) => !text);
    });
    expect(withoutSources).toEqual([]);
    // The CLI's bundle: its maps name the src/ lines (the TypeScript is in the maps above, not twice) and the
    // packages' files it holds, whose licences go with it.
    expect(bundled.length).toBeGreaterThan(10);
    const sources = bundled.flatMap((map) => sourcesOf(map).sources);
    expect(sources.filter((s) => !/^\.\.\/\.\.\/(src|node_modules)\//.test(s))).toEqual([]);
    expect(sources).toContain('../../src/cli/main.ts');
    const licences = readFileSync(join(project, 'dist/bundle/THIRD-PARTY-LICENSES.txt'), 'utf8');
    const bundledPackages = new Set(
      sources.map((s) => /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(s)?.[1]),
    );
    expect(bundledPackages).toContain('express');
    for (const name of bundledPackages) if (name) expect(licences).toMatch(new RegExp(`^${name}@\\d`, 'm'));
  });

  it('installed, an error under --enable-source-maps names the src/ line and shows its TypeScript', async (context) => {
    if (installError.startsWith('skipped')) context.skip(installError);
    expect(installError).toBe('');
    writeFileSync(
      join(consumer, 'trace.mjs'),
      "import { startEmulator } from 'platform-emu';\n" +
        "await startEmulator({ inMemory: true, port: 0, mqttPort: 0, mqttsPort: 0, fixtures: 'missing.json' });\n",
    );
    const run = await execa('node', ['--enable-source-maps', 'trace.mjs'], { cwd: consumer, reject: false });
    expect(run.exitCode).toBe(1);
    // Node shows the throwing line from the map's sourcesContent: src/ is not in the package.
    expect(run.stderr).toMatch(/node_modules\/platform-emu\/src\/seed\/load\.ts:\d+\n\s*throw new FixtureError\(/);
    expect(run.stderr).toContain('Cannot read the fixture file');
  }, 60_000);

  it('installed into an empty project, `npx platform-emu start` answers health', async (context) => {
    if (installError.startsWith('skipped')) context.skip(installError);
    expect(installError).toBe('');
    let emulator: ResultPromise | undefined;
    try {
      // npx is npm's wrapper and does not forward signals: the process group is ended as a whole.
      emulator = execa(
        'npx',
        ['platform-emu', 'start', '--port', '0', '--mqtt-port', '0', '--mqtts-port', '0', '--in-memory', '--json'],
        { cwd: consumer, detached: true, reject: false, env: { NO_COLOR: '1' } },
      );
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        emulator!.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
        });
        void emulator!.then((r) => reject(new Error(`start ended: ${r.exitCode}\n${r.stderr}`)));
      });
      const { url } = JSON.parse(line) as { url: string };
      const health = await fetch(`${url}/_emu/health`);
      expect(health.status).toBe(200);
      // the package in use is the one installed in the consumer, not this checkout
      const which = await execa('npx', ['platform-emu', '--version'], { cwd: consumer });
      expect(which.stdout.trim()).toBe(
        (JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { version: string }).version,
      );
    } finally {
      if (emulator?.pid) process.kill(-emulator.pid, 'SIGTERM');
      await emulator;
    }
  }, 120_000);
});
