import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import * as prettier from 'prettier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../src/index.js';
import { api, tokenFor } from './helpers/emulator.js';

/*
 * docs/adding-a-service.md cannot drift: its code blocks are applied to a copy of the repository (a block
 * ```ts file=PATH is the whole file, ```ts edit=src/services/index.ts the import and the entry to add, ```json fixture
 * a fixture section), the copy is built with tsc, and the service it makes is called over HTTP.
 */
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const GUIDE = readFileSync(join(ROOT, 'docs/adding-a-service.md'), 'utf8');

interface Block {
  info: string;
  code: string;
}

function blocks(markdown: string): Block[] {
  return [...markdown.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({ info: m[1].trim(), code: m[2] }));
}

const tagged = (tag: string) =>
  blocks(GUIDE).flatMap((b) => {
    const match = new RegExp(`(?:^|\\s)${tag}=(\\S+)`).exec(b.info);
    return match ? [{ path: match[1], code: b.code }] : [];
  });

/** The registration: the guide's import lines after the last import, its entry lines at the end of the list. */
function register(listFile: string, addition: string): string {
  const lines = addition.split('\n').filter((l) => l.trim());
  const imports = lines.filter((l) => l.startsWith('import '));
  const entries = lines.filter((l) => !l.startsWith('import '));
  let text = readFileSync(listFile, 'utf8');
  const lastImport = text.lastIndexOf('\nimport ');
  const afterImports = text.indexOf('\n', text.indexOf(';', lastImport)) + 1;
  text = text.slice(0, afterImports) + imports.join('\n') + '\n' + text.slice(afterImports);
  const listEnd = text.indexOf('\n];', text.indexOf('export const services'));
  return text.slice(0, listEnd) + '\n' + entries.join('\n') + text.slice(listEnd);
}

let copy: string;
let emulator: RunningEmulator;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  copy = mkdtempSync(join(tmpdir(), 'platform-emu-guide-'));
  for (const entry of ['src', 'fixtures', 'tsconfig.json', 'package.json'])
    cpSync(join(ROOT, entry), join(copy, entry), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');

  const files = tagged('file');
  expect(files.map((f) => f.path).sort()).toEqual(
    ['fixtures.ts', 'index.ts', 'notes.ts', 'routes.ts', 'schemas.ts'].map((f) => `src/services/notes/${f}`),
  );
  for (const file of files) {
    mkdirSync(dirname(join(copy, file.path)), { recursive: true });
    writeFileSync(join(copy, file.path), file.code);
  }
  const edits = tagged('edit');
  expect(edits.map((e) => e.path)).toEqual(['src/services/index.ts']);
  writeFileSync(join(copy, edits[0].path), register(join(copy, edits[0].path), edits[0].code));

  const fixture = blocks(GUIDE).filter((b) => /(?:^|\s)fixture(?:\s|$)/.test(b.info));
  expect(fixture).toHaveLength(1);
  const fixtures = {
    ...JSON.parse(readFileSync(join(ROOT, 'fixtures/default.json'), 'utf8')),
    ...JSON.parse(fixture[0].code),
  };
  writeFileSync(join(copy, 'fixtures/guide.json'), JSON.stringify(fixtures));

  await promisify(execFile)(join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: copy }).catch(
    (err: { stdout?: string; stderr?: string }) => {
      throw new Error(`The guide's code does not build:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
    },
  );
  const built = (await import(pathToFileURL(join(copy, 'dist/index.js')).href)) as typeof import('../src/index.js');
  emulator = await built.startEmulator({
    port: 0,
    mqttPort: 0,
    inMemory: true,
    auth: 'on',
    fixtures: join(copy, 'fixtures/guide.json'),
    log: () => undefined,
  });
  call = api(emulator);
}, 180_000);

afterAll(async () => {
  await emulator?.stop();
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe('the notes service built from docs/adding-a-service.md', () => {
  const ALL = ['tenant:note:create', 'tenant:note:read', 'tenant:note:delete'];

  it('creates, lists, gets and deletes a note over HTTP, answering without tenantId', async () => {
    const token = await tokenFor(emulator, { tenant: 'acme', scopes: ALL });
    const created = await call('POST', '/notes/api/v1/notes', { token, body: { text: 'buy milk' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), text: 'buy milk', createdDate: expect.any(String) });
    expect(created.headers.get('location')).toBe(`${emulator.url}/notes/api/v1/notes/${created.body.id}`);

    const list = await call('GET', '/notes/api/v1/notes?limit=0', { token });
    expect(list.status).toBe(200);
    expect(list.body.totalElements).toBe(2);
    expect(list.body.content.map((n: { id: string }) => n.id)).toEqual(['welcome', created.body.id]);
    expect(JSON.stringify(list.body)).not.toContain('tenantId');
    const firstPage = await call('GET', '/notes/api/v1/notes?limit=1', { token });
    expect(firstPage.body).toEqual({ content: [list.body.content[0]], totalElements: 2 });

    const got = await call('GET', `/api/v1/notes/${created.body.id}`, { token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);
    const etag = got.headers.get('etag')!;
    expect(
      (await call('GET', `/notes/api/v1/notes/${created.body.id}`, { token, headers: { 'if-none-match': etag } }))
        .status,
    ).toBe(304);

    const stale = await call('DELETE', `/notes/api/v1/notes/${created.body.id}`, {
      token,
      headers: { 'if-match': '"0"' },
    });
    expect(stale.status).toBe(412);
    const deleted = await call('DELETE', `/notes/api/v1/notes/${created.body.id}`, {
      token,
      headers: { 'if-match': etag },
    });
    expect(deleted.status).toBe(204);
    expect((await call('GET', `/notes/api/v1/notes/${created.body.id}`, { token })).status).toBe(404);
  });

  it("answers another tenant's note 404, and checks the body", async () => {
    const acme = await tokenFor(emulator, { tenant: 'acme', scopes: ALL });
    const globex = await tokenFor(emulator, { tenant: 'globex', scopes: ALL });
    expect((await call('GET', '/notes/api/v1/notes/welcome', { token: acme })).status).toBe(200);
    const foreign = await call('GET', '/notes/api/v1/notes/welcome', { token: globex });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ message: 'There is no note welcome.' });
    expect((await call('DELETE', '/notes/api/v1/notes/welcome', { token: globex })).status).toBe(404);
    expect((await call('GET', '/notes/api/v1/notes', { token: globex })).body).toEqual({
      content: [],
      totalElements: 0,
    });

    const bad = await call('POST', '/notes/api/v1/notes', { token: acme, body: { text: '', colour: 'red' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/Invalid request body/);
  });

  it('follows the house style: every file block is formatted as prettier would', async () => {
    const unformatted: string[] = [];
    for (const file of tagged('file')) {
      const options = await prettier.resolveConfig(join(ROOT, file.path));
      if (!(await prettier.check(file.code, { ...options, filepath: join(ROOT, file.path) })))
        unformatted.push(file.path);
    }
    expect(unformatted).toEqual([]);
  });

  it('needs the route scopes with auth on, and lists the service instance', async () => {
    const reader = await tokenFor(emulator, { tenant: 'acme', scopes: ['tenant:note:read'] });
    expect((await call('GET', '/notes/api/v1/notes', { token: reader })).status).toBe(200);
    expect((await call('POST', '/notes/api/v1/notes', { token: reader, body: { text: 'x' } })).status).toBe(403);
    expect((await call('DELETE', '/notes/api/v1/notes/welcome', { token: reader })).status).toBe(403);
    expect((await call('GET', '/notes/api/v1/notes')).status).toBe(401);

    const admin = await tokenFor(emulator, { tenant: 'acme', scopes: ['application:read'] });
    const instances = await call('GET', '/app-manager/api/v1/service-instances', { token: admin });
    expect(instances.body).toContainEqual(
      expect.objectContaining({ name: 'notes', serviceGroup: 'admin', urlPrefix: '/notes', description: 'Notes' }),
    );
  });
});
