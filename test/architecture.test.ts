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

/**
 * The floors, read from the table in docs/architecture.md (the page and this test say the same thing because the test
 * reads the page): a row is `| \`floor\` | \`folder/\`, \`file.ts\` | \`floor\`, \`file.ts\` | what it is |`.
 */
interface Floor {
  holds: string[];
  /** Floors, and single files of other floors (a type only), this floor may import. */
  mayImport: Set<string>;
}
const ticks = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
const MAP = readFileSync(fileURLToPath(new URL('../docs/architecture.md', import.meta.url)), 'utf8');
const FLOORS = new Map<string, Floor>(
  MAP.slice(MAP.indexOf('## The floors'))
    .split('\n## ')[0]
    .split('\n')
    .filter((line) => /^\| `/.test(line))
    .map((line) => {
      const [floor, holds, mayImport] = line.split('|').slice(1, 4).map(ticks);
      return [floor[0], { holds, mayImport: new Set(mayImport) }];
    }),
);
const FLOORS_HOLDING = (file: string) =>
  [...FLOORS].filter(([, floor]) => floor.holds.some((h) => (h.endsWith('/') ? file.startsWith(h) : file === h)));
const floorOf = (file: string) => FLOORS_HOLDING(file)[0]?.[0] ?? '(none)';

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

  it('every import goes to its own floor or one its row in docs/architecture.md names', () => {
    const violations = files.flatMap((f) => {
      const from = floorOf(name(f));
      return graph
        .get(f)!
        .filter((target) => graph.has(target))
        .filter((target) => {
          const to = floorOf(name(target));
          return to !== from && !FLOORS.get(from)!.mayImport.has(to) && !FLOORS.get(from)!.mayImport.has(name(target));
        })
        .map((target) => `${name(f)} (${from}) -> ${name(target)} (${floorOf(name(target))})`);
    });
    expect(violations).toEqual([]);
  });

  it('the floor table is whole: every file of src/ is on one floor, every floor named in it exists', () => {
    expect(files.map(name).filter((f) => FLOORS_HOLDING(f).length !== 1)).toEqual([]);
    const named = [...FLOORS.values()].flatMap((floor) => [...floor.mayImport].filter((t) => !t.includes('.')));
    expect(named.filter((t) => !FLOORS.has(t))).toEqual([]);
    expect([...FLOORS.keys()]).toEqual([
      'ground',
      'contract',
      'shared',
      'server',
      'services',
      'client',
      'edges',
      'emulator',
      'cli',
    ]);
  });

  it(
    'src/services holds only service folders: each has the descriptor index.ts that src/services/index.ts ' + 'lists',
    () => {
      const folders = readdirSync(join(SRC, 'services'), { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
      const listed = readFileSync(join(SRC, 'services/index.ts'), 'utf8');
      expect(folders.filter((folder) => !listed.includes(`'./${folder}/index.js'`))).toEqual([]);
    },
  );

  /*
   * The CLI could be a package of its own: it reaches the emulator through the package's index (`src/index.ts`), the
   * client, the simulator and `src/data-dir.ts` (public: the index exports it; imported directly, it loads nothing
   * until used). What it still takes from inside is listed below, each with why; the list grows only for a reason
   * measured (the wire thread started while the emulator's modules load: a cold start a fifth shorter).
   */
  const CLI_PUBLIC = /^(index\.ts|data-dir\.ts|version\.ts|client\/.*|simulator\/.*|cli\/.*)$/;
  const CLI_INSIDE = new Set([
    // `start` is the emulator's own launcher: the lock of a detached in-memory emulator, the lock's URLs, the banner's
    // tenants, the key made while modules load (auth on), `--compat` checked before the start.
    'cli/foreground.ts -> store/lock.ts',
    'cli/lifecycle.ts -> store/lock.ts',
    'cli/lifecycle.ts -> emulator.ts',
    'cli/start.ts -> emulator.ts',
    'cli/start.ts -> auth/keys.ts',
    'cli/start.ts -> services/index.ts',
    'cli/start.ts -> server/compat-choices.ts',
    // The MQTT wire thread is started before the emulator's modules load, which run meanwhile (bench figure 1a).
    'cli/start.ts -> gateway/wire.ts',
    'cli/start-banner.ts -> emulator.ts',
    'cli/start-banner.ts -> services/tenant-manager/tenants.ts',
    // `call` and `token` check a body, a bare path and scopes against the route table without loading the emulator.
    'cli/call.ts -> services/operations.ts',
    'cli/call.ts -> schema/json-schema.ts',
    'cli/call.ts -> auth/scopes.ts',
    'cli/token.ts -> auth/scopes.ts',
    'cli/token.ts -> services/index.ts',
  ]);

  it(
    'the CLI imports only the public surface (index, client, simulator, data-dir) and its own folder, and the ' +
      'listed rest',
    () => {
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
    },
  );
});
