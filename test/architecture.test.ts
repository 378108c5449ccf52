import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** Every relative import and re-export of a file (type-only ones too: a circle of types is still a circle of rooms). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s+'(\.{1,2}\/[^']+)'/g),
    ...text.matchAll(/import\('(\.{1,2}\/[^']+)'\)/g),
  ];
  return specifiers.map((m) => resolve(dirname(file), m[1].replace(/\.js$/, '.ts')));
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((f) => [f, importsOf(f)]));
const name = (f: string) => relative(SRC, f);

describe('the house plan', () => {
  it('has no import circles', () => {
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.push([...path.slice(path.indexOf(file)), file].map(name).join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) if (graph.has(next)) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(circles).toEqual([]);
  });

  it('lower floors never import a service: store, schema, auth, server and the contract reach services through the context', () => {
    const lower = files.filter(
      (f) =>
        /^(store|schema|auth|server)\//.test(name(f)) || ['contract.ts', 'context.ts', 'config.ts'].includes(name(f)),
    );
    const upward = lower.flatMap((f) =>
      graph
        .get(f)!
        .filter((target) => name(target).startsWith('services/'))
        .map((target) => `${name(f)} -> ${name(target)}`),
    );
    expect(upward).toEqual([]);
  });

  it('the floor of the gateway, the dashboard and the OIDC realms (gateway/, ui/, oidc/) is imported only from above: the emulator and the CLI', () => {
    const upper = /^(gateway|ui|oidc)\//;
    const below = files.filter(
      (f) =>
        !upper.test(name(f)) &&
        !/^(cli|simulator|client)\//.test(name(f)) &&
        !['emulator.ts', 'index.ts', 'handle.ts', 'data-dir.ts'].includes(name(f)) &&
        !name(f).startsWith('emulator/'),
    );
    const upward = below.flatMap((f) =>
      graph
        .get(f)!
        .filter((target) => upper.test(name(target)))
        .map((target) => `${name(f)} -> ${name(target)}`),
    );
    expect(upward).toEqual([]);
  });

  it('src/services holds only service folders: each has the descriptor index.ts that src/services/index.ts lists', () => {
    const folders = readdirSync(join(SRC, 'services'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    const listed = readFileSync(join(SRC, 'services/index.ts'), 'utf8');
    expect(folders.filter((folder) => !listed.includes(`'./${folder}/index.js'`))).toEqual([]);
  });

  /*
   * The CLI could be a package of its own: it reaches the emulator through the package's index (`src/index.ts`), the
   * client, the simulator and `src/data-dir.ts` (public: the index exports it; imported directly, it loads nothing
   * until used). What it still takes from inside is listed below, each with why; the list may only shrink.
   */
  const CLI_PUBLIC = /^(index\.ts|data-dir\.ts|version\.ts|client\/.*|simulator\/.*|cli\/.*)$/;
  const CLI_INSIDE = new Set([
    // `start` is the emulator's own launcher: the lock of a detached in-memory emulator, the lock's URLs, the banner's
    // tenants, the key made while modules load, `--compat` checked before the start.
    'cli/foreground.ts -> store/lock.ts',
    'cli/lifecycle.ts -> store/lock.ts',
    'cli/lifecycle.ts -> emulator.ts',
    'cli/start.ts -> emulator.ts',
    'cli/start.ts -> auth/keys.ts',
    'cli/start.ts -> services/index.ts',
    'cli/start.ts -> server/compat-choices.ts',
    'cli/start.ts -> services/tenant-manager/tenants.ts',
    // `call` and `token` check a body, a bare path and scopes against the route table without loading the emulator.
    'cli/call.ts -> services/operations.ts',
    'cli/call.ts -> schema/json-schema.ts',
    'cli/call.ts -> auth/scopes.ts',
    'cli/token.ts -> auth/scopes.ts',
    'cli/token.ts -> services/index.ts',
  ]);

  it('the CLI imports only the public surface (index, client, simulator, data-dir) and its own folder, and the listed rest', () => {
    const inside = files
      .filter((f) => name(f).startsWith('cli/'))
      .flatMap((f) =>
        graph
          .get(f)!
          .filter((target) => !CLI_PUBLIC.test(name(target)))
          .map((target) => `${name(f)} -> ${name(target)}`),
      );
    expect([...new Set(inside)].filter((edge) => !CLI_INSIDE.has(edge))).toEqual([]);
    expect([...CLI_INSIDE].filter((edge) => !inside.includes(edge))).toEqual([]);
  });
});
