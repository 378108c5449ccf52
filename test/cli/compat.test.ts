import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compatProblem } from '../../src/server/compat-choices.js';
import { services } from '../../src/services/index.js';

const docs = fileURLToPath(new URL('../../docs/', import.meta.url));
const markdown = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? markdown(join(dir, entry.name)) : entry.name.endsWith('.md') ? [join(dir, entry.name)] : [],
  );

describe('--compat', () => {
  it('accepts every choice the docs show: each service with revisions declares them in its descriptor', () => {
    const shown = markdown(docs).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/--compat ([a-z0-9-]+)=([A-Za-z0-9._-]+)/g)].map((m) => ({
        file,
        choice: { [m[1]]: m[2] },
      })),
    );
    expect(shown.length).toBeGreaterThan(0);
    for (const { file, choice } of shown)
      expect(compatProblem(choice, services), `${file}: ${JSON.stringify(choice)}`).toBeUndefined();
  });

  it('refuses a service without revisions and a revision a service does not have, naming the choices', () => {
    expect(compatProblem({ cex: '1', 'app-manager': '2' }, services)).toBeUndefined();
    expect(compatProblem({ foo: '9' }, services)).toMatch(
      /^--compat foo=9: foo has no revisions to choose from; the choices are .*cex=1\|2/,
    );
    expect(compatProblem({ cex: 'latest' }, services)).toBe(
      '--compat cex=latest: the revisions of cex are 1, 2 (default 2).',
    );
    for (const service of services.filter((s) => s.compat))
      expect(service.compat!.revisions).toContain(service.compat!.default);
  });
});

describe('startEmulator({ compat })', () => {
  it(
    'is checked like --compat: an unknown revision is refused with the same words, and the error is ' + 'exported',
    async () => {
      const { startEmulator, EmulatorOptionsError } = await import('../../src/index.js');
      const started = startEmulator({
        port: 0,
        mqttPort: 0,
        inMemory: true,
        compat: { ecr: '1' },
        log: () => undefined,
      });
      await expect(started).rejects.toBeInstanceOf(EmulatorOptionsError);
      await expect(started).rejects.toThrow(compatProblem({ ecr: '1' }, services)!);
      const fine = await startEmulator({
        port: 0,
        mqttPort: 0,
        inMemory: true,
        compat: { cex: '1', ecr: 'envelope' },
        log: () => undefined,
      });
      await fine.stop();
    },
  );
});
