import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectOneLineError, getJson, processesOfThisFile, register } from '../helpers/cli-processes.js';
import { cli } from '../store/emulator-process.js';

const { root, freshDir, start, seededDir } = processesOfThisFile();

const endpointIds = (list: { content: Array<{ endpointId: string }> }) => list.content.map((e) => e.endpointId).sort();

describe('platform-emu fixtures', () => {
  it('exports the whole state of a stopped directory to stdout and to a file', async () => {
    const dir = await seededDir();
    const toStdout = await cli(['fixtures', 'export', '--data', dir]);
    expect(toStdout.exitCode, String(toStdout.stderr)).toBe(0);
    const document = JSON.parse(String(toStdout.stdout));
    expect(document.schemaVersion).toBe(1);
    expect(Object.keys(document.collections.endpoints)).toHaveLength(12);
    expect(Object.keys(document.collections.tenants).sort()).toEqual(['acme', 'globex']);

    const file = `${dir}-export.json`;
    const toFile = await cli(['fixtures', 'export', file, '--data', dir]);
    expect(toFile.exitCode).toBe(0);
    expect(String(toFile.stdout)).toBe('');
    expect(String(toFile.stderr)).toContain(`Exported the state to ${file}`);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(document);
    expect(existsSync(join(dir, 'emulator.lock'))).toBe(false);
  });

  it('exports from a running emulator, found by its lock or given by --url', async () => {
    const dir = await seededDir();
    const emulator = await start(['--port', '0', '--quiet', '--data', dir]);
    expect(await register(emulator.url, 'only-in-the-log')).toBe(201);
    for (const target of [
      ['--data', dir],
      ['--url', emulator.url],
    ]) {
      const result = await cli(['fixtures', 'export', ...target]);
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect(JSON.parse(String(result.stdout)).collections.endpoints).toHaveProperty('only-in-the-log');
    }
    await emulator.stop('SIGTERM');
  });

  it('imports an edited export into a stopped directory, and the next start serves it', async () => {
    const dir = await seededDir();
    const document = JSON.parse(String((await cli(['fixtures', 'export', '--data', dir])).stdout));
    delete document.collections.endpoints['meter-006'];
    document.collections.endpoints['meter-007'] = {
      ...document.collections.endpoints['meter-005'],
      endpointId: 'meter-007',
      token: 'meter-007-token',
    };
    const file = `${dir}-edited.json`;
    writeFileSync(file, JSON.stringify(document));

    const result = await cli(['fixtures', 'import', file, '--data', dir]);
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(String(result.stderr)).toContain(`Imported ${file}; the previous state was replaced.`);
    const emulator = await start(['--port', '0', '--quiet', '--data', dir]);
    const ids = endpointIds((await getJson(`${emulator.url}/epr/api/v1/endpoints?limit=0`)).body);
    expect(ids).toContain('meter-007');
    expect(ids).not.toContain('meter-006');
    await emulator.stop('SIGTERM');
  });

  it('imports a fixture file into a running emulator', async () => {
    const emulator = await start(['--port', '0', '--quiet', '--in-memory', '--fixtures', 'none']);
    const result = await cli(['fixtures', 'import', 'fixtures/default.json', '--url', emulator.url]);
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect((await getJson(`${emulator.url}/epr/api/v1/endpoints`)).body.totalElements).toBe(10);
    await emulator.stop('SIGTERM');
  });

  /** A seeded directory, its export, and two files made from it that do not validate. */
  async function invalidFiles() {
    const dir = await seededDir();
    const before = String((await cli(['fixtures', 'export', '--data', dir])).stdout);
    const document = JSON.parse(before);
    delete document.collections.endpoints['meter-004'].tenantId;
    document.collections.endpoints['meter-001'].metadata = { changed: true };
    const badExport = `${dir}-bad-export.json`;
    writeFileSync(badExport, JSON.stringify(document));
    const fixture = JSON.parse(readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8'));
    fixture.endpoints = [
      { endpointId: 'just-one', appVersion: 'smart-meter-v1', token: 'just-one-token' },
      { ...fixture.endpoints[0], endpointId: 42 },
    ];
    const badFixture = `${dir}-bad-fixture.json`;
    writeFileSync(badFixture, JSON.stringify(fixture));
    return { dir, before, badExport, badFixture };
  }

  it('changes nothing in a stopped directory when the file does not validate, and names the wrong record', async () => {
    const { dir, before, badExport, badFixture } = await invalidFiles();
    const stopped = await cli(['fixtures', 'import', badExport, '--data', dir]);
    expectOneLineError(stopped, 1, /collections\.endpoints\["meter-004"\].*tenantId/);
    expectOneLineError(await cli(['fixtures', 'import', badFixture, '--data', dir]), 1, /endpoints\[1\]/);
    expect(String((await cli(['fixtures', 'export', '--data', dir])).stdout)).toBe(before);
  });

  it('changes nothing in a running emulator when the file does not validate, and names the wrong record', async () => {
    const { dir, before, badExport, badFixture } = await invalidFiles();
    const emulator = await start(['--port', '0', '--quiet', '--data', dir]);
    expectOneLineError(
      await cli(['fixtures', 'import', badExport, '--url', emulator.url]),
      1,
      /answered 400: .*collections\.endpoints\["meter-004"\]/,
    );
    expectOneLineError(
      await cli(['fixtures', 'import', badFixture, '--data', dir]),
      1,
      /answered 400: .*endpoints\[1\]/,
    );
    const after = JSON.parse(String((await cli(['fixtures', 'export', '--url', emulator.url])).stdout));
    expect(after.collections).toEqual(JSON.parse(before).collections);
    await emulator.stop('SIGTERM');
  });

  it('refuses a file that is not JSON with one line', async () => {
    const file = join(root, 'not-json.json');
    writeFileSync(file, '{ nope');
    expectOneLineError(
      await cli(['fixtures', 'import', file, '--data', freshDir()]),
      1,
      /Cannot read .*not-json\.json/,
    );
  });
});
