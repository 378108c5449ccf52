import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { runtimeOf, type EmuContext } from '../../context.js';
import type { StateDocument } from '../../store/index.js';

export interface SnapshotInfo {
  name: string;
  /** When it was saved (the machine's time). */
  savedAt: string;
  /** Size of its file; absent in memory. */
  bytes?: number;
}

/**
 * Where snapshots live: files under `<data>/snapshots/` (each a state document `fixtures import` also reads), or
 * memory.
 */
export interface SnapshotStorage {
  save(name: string, document: StateDocument): Promise<{ info: SnapshotInfo; replaced: boolean }>;
  read(name: string): Promise<unknown | undefined>;
  list(): Promise<SnapshotInfo[]>;
  info(name: string): Promise<SnapshotInfo | undefined>;
  delete(name: string): Promise<boolean>;
}

const SUFFIX = '.json';

function memoryStorage(): SnapshotStorage {
  // Stored records are frozen and never changed in place, so keeping the exported document is a true copy.
  const saved = new Map<string, { document: StateDocument; info: SnapshotInfo }>();
  return {
    async save(name, document) {
      const replaced = saved.has(name);
      const info = { name, savedAt: new Date().toISOString() };
      saved.set(name, { document, info });
      return { info, replaced };
    },
    read: async (name) => saved.get(name)?.document,
    list: async () => [...saved.values()].map((s) => s.info).sort((a, b) => a.name.localeCompare(b.name)),
    info: async (name) => saved.get(name)?.info,
    delete: async (name) => saved.delete(name),
  };
}

async function fsync(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const missing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';

function fileStorage(dataDir: string): SnapshotStorage {
  const dir = join(dataDir, 'snapshots');
  const pathOf = (name: string) => join(dir, `${name}${SUFFIX}`);
  const infoOf = async (name: string): Promise<SnapshotInfo | undefined> => {
    try {
      const stats = await stat(pathOf(name));
      return { name, savedAt: stats.mtime.toISOString(), bytes: stats.size };
    } catch (err) {
      if (missing(err)) return undefined;
      throw err;
    }
  };
  return {
    // Written like state.json (temp file, fsync, rename, directory fsync), readable only by the owner: it holds
    // secrets.
    async save(name, document) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const replaced = (await infoOf(name)) !== undefined;
      const temp = join(dir, `.${name}.${process.pid}.tmp`);
      const handle = await open(temp, 'w', 0o600);
      try {
        await handle.writeFile(`${JSON.stringify(document)}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, pathOf(name));
      await fsync(dir);
      return { info: (await infoOf(name))!, replaced };
    },
    async read(name) {
      let text: string;
      try {
        text = await readFile(pathOf(name), 'utf8');
      } catch (err) {
        if (missing(err)) return undefined;
        throw err;
      }
      try {
        return JSON.parse(text) as unknown;
      } catch (err) {
        throw new Error(`${pathOf(name)} is not valid JSON (${(err as Error).message}).`);
      }
    },
    async list() {
      let names: string[];
      try {
        names = (await readdir(dir))
          .filter((f) => f.endsWith(SUFFIX) && !f.startsWith('.'))
          .map((f) => f.slice(0, -SUFFIX.length));
      } catch (err) {
        if (missing(err)) return [];
        throw err;
      }
      const infos = await Promise.all(names.sort().map(infoOf));
      return infos.filter((i): i is SnapshotInfo => i !== undefined);
    },
    info: infoOf,
    async delete(name) {
      if ((await infoOf(name)) === undefined) return false;
      await rm(pathOf(name), { force: true });
      return true;
    },
  };
}

export const snapshotStorage = (ctx: EmuContext) =>
  runtimeOf<SnapshotStorage>(ctx, 'snapshots', () =>
    ctx.config.dataDir && !ctx.config.inMemory ? fileStorage(ctx.config.dataDir) : memoryStorage(),
  );
