import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * One way for each shared thing (issue 26): each helper below has one definition, and no other file writes it again.
 * A file listed as pending still holds a copy that its own change removes (routes outside the services becoming
 * Route entries with body schemas); the list may only shrink.
 */

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

const sources = sourceFiles(SRC).map((file) => ({ name: relative(SRC, file), text: readFileSync(file, 'utf8') }));

/** The files (relative to src/) in which `pattern` occurs. */
const filesWith = (pattern: RegExp) =>
  sources
    .filter((file) => pattern.test(file.text))
    .map((file) => file.name)
    .sort();

describe('one definition of each shared helper', () => {
  it('the plain-object check is isPlainObject (src/store/json-values.ts)', () => {
    const written = new RegExp(
      String.raw`typeof ([\w.]+) === 'object' && \1 !== null && !Array\.isArray\(\1\)|typeof ([\w.]+) !== 'object' ` +
        String.raw`\|\| \2 === null \|\| Array\.isArray\(\2\)`,
    );
    // The CLI would be a package of its own.
    expect(filesWith(written)).toEqual(['cli/device/options.ts', 'store/json-values.ts']);
  });

  it(
    'percent-decoding is percentDecoded (src/server/percent-decoding.ts); the client, a public floor of its ' +
      'own, decodes a Location',
    () => {
      expect(filesWith(/decodeURIComponent\(/)).toEqual(['client/endpoints.ts', 'server/percent-decoding.ts']);
    },
  );

  it('the metadata-key pattern is METADATA_KEY_PATTERN (src/services/epr/schemas.ts)', () => {
    // The simulator's telemetry field names follow the same rule by coincidence, not as metadata keys.
    expect(filesWith(/\^\[a-zA-Z0-9_\]\+\$/)).toEqual(['services/epr/schemas.ts', 'simulator/telemetry.ts']);
  });

  it('the id pattern is ID_PATTERN (src/contract.ts)', () => {
    expect(filesWith(/a-zA-Z0-9\._~-\]/)).toEqual(['contract.ts']);
  });

  it('start defaults are START_DEFAULTS (src/config.ts): the CLI and the client write none of them again', () => {
    expect(filesWith(/'\.?\/?\.platform-emu'/)).toEqual(['config.ts']);
    expect(filesWith(/'http:\/\/(127\.0\.0\.1|localhost):8080'/)).toEqual([]);
    // Every CLI option named like a start option takes its default from START_DEFAULTS.
    const flags = [
      '--port',
      '--host',
      '--data-dir',
      '--fixtures',
      '--auth',
      '--body-limit',
      '--async-timeout',
      '--mqtt-port',
      '--mqtt-auth',
      '--upload-token-ttl',
      '--upload-limit',
      '--journal-size',
    ];
    const options = sources
      .filter((file) => file.name.startsWith('cli/'))
      .flatMap((file) =>
        file.text
          .split('new Option(')
          .slice(1)
          .map((text) => ({ file: file.name, text })),
      )
      .filter(
        ({ text }) =>
          flags.some((flag) => new RegExp(`^\\s*'[^']*${flag}\\b`).test(text)) && text.includes('.default('),
      );
    expect(options.length).toBeGreaterThanOrEqual(flags.length);
    const copies = options
      .filter(({ text }) => !/\.default\(\s*START_DEFAULTS\.\w+[,)\s]/.test(text))
      .map(({ file, text }) => `${file}: ${text.split('\n')[0]}`);
    expect(copies).toEqual([]);
  });
});
