import { execa } from 'execa';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadedPackages, ownModules } from '../helpers/own-modules.js';
import { assertBuilt, BIN } from '../store/emulator-process.js';

const IMPORTS_LOG_HOOK = fileURLToPath(new URL('../helpers/imports-log.mjs', import.meta.url));

/** What a start on a new data directory need not load before it answers (bench figure 1a, docs/performance.md). */
const DEFERRED: Record<string, RegExp> = {
  dashboard: /^ui\//,
  'OIDC realms': /^oidc\/router\.js$/,
  'ingest simulator': /^services\/asf\/(ingest|painless)\//,
};

const root = await mkdtemp(join(tmpdir(), 'platform-emu-start-imports-'));
afterAll(() => rm(root, { recursive: true, force: true }));

describe('what a start loads', () => {
  it('a start on a new data directory answers health without the dashboard, the OIDC realms, the ingest simulator or re2js; each loads with its first request', async () => {
    assertBuilt();
    const log = join(root, 'imports.log');
    await writeFile(log, '');
    const child = execa(
      'node',
      ['--import', IMPORTS_LOG_HOOK, BIN, 'start', '--port', '0', '--mqtt-port', '0', '--quiet'],
      { reject: false, env: { NO_COLOR: '1', IMPORTS_LOG: log }, cwd: root, buffer: false },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /(http:\/\/\S+)\n/.exec(out);
          if (match) resolve(match[1]);
        });
        void child.then((result) => reject(new Error(`start ended: ${String(result.stderr)}`)));
      });
      const loaded = async () => {
        const urls = [...new Set((await readFile(log, 'utf8')).split('\n').filter(Boolean))];
        return {
          modules: ownModules(urls),
          packages: loadedPackages(urls),
        };
      };
      expect((await fetch(`${url}/_emu/health`)).status).toBe(200);
      const atStart = await loaded();
      for (const [what, pattern] of Object.entries(DEFERRED))
        expect(
          atStart.modules.filter((m) => pattern.test(m)),
          what,
        ).toEqual([]);
      expect(atStart.packages.filter((p) => /^(re2js|@peculiar\/)/.test(p))).toEqual([]);

      expect((await fetch(`${url}/_emu/ui`)).status).toBe(200);
      expect((await fetch(`${url}/auth/realms/acme/.well-known/openid-configuration`)).status).toBe(200);
      const simulated = await fetch(`${url}/asf/api/v1/_ingest/pipeline/simulate/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          pipeline: { processors: [{ set: { field: 'seen', value: true } }] },
          docs: [{ _source: {} }],
        }),
      });
      expect(simulated.status).toBe(200);
      expect(await simulated.json()).toMatchObject({ docs: [{ doc: { _source: { seen: true } } }] });
      const afterUse = await loaded();
      for (const [what, pattern] of Object.entries(DEFERRED))
        expect(
          afterUse.modules.some((m) => pattern.test(m)),
          what,
        ).toBe(true);
    } finally {
      child.kill('SIGTERM');
      await child;
    }
  });
});
