import { execa } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The CLI runs from the bundle that `npm run build` writes to dist/bundle/ (scripts/bundle.js): these tests check
// what moving code into chunks could break, through the real CLI.
const ROOT = new URL('../../', import.meta.url);
const BIN = fileURLToPath(new URL('bin/platform-emu.js', ROOT));
const DIST = new URL('dist/', ROOT).href;
const BUNDLE = new URL('dist/bundle/', ROOT).href;
if (!existsSync(new URL('cli.js', BUNDLE))) throw new Error('Run `npm run build` before the CLI tests.');
const IMPORTS_LOG_HOOK = fileURLToPath(new URL('../helpers/imports-log.mjs', import.meta.url));
const EXIT_STACK_HOOK = fileURLToPath(new URL('../helpers/exit-stack.mjs', import.meta.url));
const packageFile = (path: string) => readFileSync(new URL(path, ROOT));

describe('the bundled CLI', () => {
  it('finds the package files from its chunks: the default fixtures, the dashboard, the version; and loads no file of dist/ outside the bundle', async () => {
    const log = join(await mkdtemp(join(tmpdir(), 'bundle-')), 'imports.log');
    await writeFile(log, '');
    const child = execa('node', ['--import', IMPORTS_LOG_HOOK, BIN, 'start', '--in-memory', '--port', '0', '--mqtt-port', '0', '--quiet', '--auth', 'off'], {
      reject: false,
      env: { IMPORTS_LOG: log, NO_COLOR: '1' },
      buffer: false,
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /(http:\/\/\S+)\n/.exec(out);
          if (match) resolve(match[1]!);
        });
        child.then((result) => reject(new Error(`start exited (${result.exitCode ?? result.signal}) before it was ready`)));
      });

      // fixtures/default.json seeded the state.
      const fixture = JSON.parse(packageFile('fixtures/default.json').toString('utf8'));
      const endpointId: string = fixture.endpoints[0].endpointId;
      const endpoint = await fetch(`${url}/epr/api/v1/endpoints/${endpointId}`);
      expect(endpoint.status).toBe(200);
      expect(await endpoint.json()).toMatchObject({ endpointId });

      // ui/ is the dashboard: its page names its assets' folder, and an asset is the file's bytes.
      const page = await (await fetch(`${url}/_emu/ui/`)).text();
      const assets = /assets\/[0-9a-f]+/.exec(page)?.[0];
      expect(assets, page.slice(0, 500)).toBeDefined();
      const script = await fetch(`${url}/_emu/ui/${assets}/main.js`);
      expect(script.status).toBe(200);
      expect(Buffer.from(await script.arrayBuffer()).equals(packageFile('ui/main.js'))).toBe(true);

      // package.json's version is the API document's.
      const { version } = JSON.parse(packageFile('package.json').toString('utf8'));
      expect((await (await fetch(`${url}/_emu/openapi.json`)).json()).info.version).toBe(version);

      const loaded = (await readFile(log, 'utf8')).split('\n').filter((line) => line.startsWith(DIST));
      expect(loaded).toContain(`${BUNDLE}cli.js`);
      expect(loaded.filter((module) => !module.startsWith(BUNDLE))).toEqual([]);
    } finally {
      child.kill('SIGTERM');
      await child;
    }
  });

  it('stack traces name the src/ files and lines (the chunks carry source maps, the bin turns them on)', async () => {
    // A `call` that cannot reach the emulator ends in main()'s catch, which exits 1: the hook prints that call's stack.
    const result = await execa('node', ['--import', EXIT_STACK_HOOK, BIN, 'call', 'GET', '/epr/api/v1/endpoints', '--url', 'http://127.0.0.1:9'], {
      reject: false,
      env: { NO_COLOR: '1' },
    });
    expect(result.exitCode).toBe(1);
    const mainSource = readFileSync(new URL('src/cli/main.ts', ROOT), 'utf8').split('\n');
    const frame = /at main \((.+)\/src\/cli\/main\.ts:(\d+):\d+\)/.exec(result.stderr);
    expect(frame, result.stderr).not.toBeNull();
    expect(frame![1]).toBe(fileURLToPath(ROOT).replace(/\/$/, ''));
    expect(mainSource[Number(frame![2]) - 1]).toContain('process.exit(');
    expect(result.stderr).not.toContain('dist/bundle');
  });
});
