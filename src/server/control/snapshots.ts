import type { Response } from 'express';
import type { EmuContext } from '../../context.js';
import { FixtureError } from '../../seed/errors.js';
import { validateStateDocument } from '../../seed/validate.js';
import { SCHEMA_VERSION, type StateDocument } from '../../store/index.js';
import { badRequest, conflict, notFound } from '../errors.js';
import type { Route } from '../../contract.js';
import type { ControlHooks } from './hooks.js';
import { snapshotStorage, type SnapshotInfo } from './snapshot-storage.js';

export type { SnapshotInfo };

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export function checkSnapshotName(name: unknown): string {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw badRequest(
      `The snapshot name ${JSON.stringify(name)} is not valid: 1 to 100 letters, digits, ".", "_" and "-", ` +
        `starting with a letter or digit (no path separators).`,
    );
  }
  return name;
}

/** Saves the whole state under a name (replacing a snapshot of that name), at one instant: no commit can interleave. */
export async function saveSnapshot(ctx: EmuContext, name: string): Promise<{ info: SnapshotInfo; replaced: boolean }> {
  return snapshotStorage(ctx).save(checkSnapshotName(name), ctx.store.exportDocument());
}

/** Reads and checks a snapshot; the caller replaces the state with it (atomically, like an import). */
export async function snapshotDocument(ctx: EmuContext, name: string): Promise<StateDocument> {
  const document = (await snapshotStorage(ctx).read(checkSnapshotName(name))) as
    { schemaVersion?: unknown } | undefined;
  if (document === undefined) throw notFound(`There is no snapshot ${name}; GET /_emu/snapshots lists them.`);
  if (typeof document?.schemaVersion === 'number' && document.schemaVersion > SCHEMA_VERSION) {
    throw conflict(
      `Snapshot ${name} was saved by a newer platform-emu (state schema ${document.schemaVersion}; this one ` +
        `reads up to ${SCHEMA_VERSION}): ` +
        'upgrade platform-emu to restore it. Nothing was changed.',
    );
  }
  try {
    return validateStateDocument(document, ctx.services, `snapshot ${name}`);
  } catch (err) {
    if (err instanceof FixtureError) throw conflict(`${err.message} Nothing was changed.`);
    throw err;
  }
}

export async function restoreSnapshot(
  ctx: EmuContext,
  name: string,
  replace: (document: StateDocument) => Promise<void>,
): Promise<void> {
  await replace(await snapshotDocument(ctx, name));
}

export const listSnapshots = (ctx: EmuContext) => snapshotStorage(ctx).list();

export async function deleteSnapshot(ctx: EmuContext, name: string): Promise<void> {
  if (!(await snapshotStorage(ctx).delete(checkSnapshotName(name)))) throw notFound(`There is no snapshot ${name}.`);
}

async function save(ctx: EmuContext, name: unknown, res: Response): Promise<void> {
  const { info, replaced } = await saveSnapshot(ctx, checkSnapshotName(name));
  res.status(replaced ? 200 : 201).json(info);
}

/** `/_emu/snapshots`: named copies of the whole state, kept in the data directory (in memory with --in-memory). */
export const snapshotRoutes = (hooks: ControlHooks): Route[] => [
  {
    method: 'GET',
    path: '/snapshots',
    scope: null,
    summary: 'List the snapshots',
    handler: async (req, res) => res.json(await listSnapshots(req.ctx)),
  },
  {
    method: 'POST',
    path: '/snapshots',
    scope: null,
    summary: 'Save the state under a name',
    // The name's own rule is `checkSnapshotName`'s, shared with the path of `PUT /snapshots/{name}`.
    bodySchema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
    handler: (req, res) => save(req.ctx, (req.body as { name: string }).name, res),
  },
  {
    method: 'GET',
    path: '/snapshots/{name}',
    scope: null,
    summary: 'One snapshot',
    handler: async (req, res) => {
      const info = await snapshotStorage(req.ctx).info(checkSnapshotName(req.params.name));
      if (!info) throw notFound(`There is no snapshot ${req.params.name}.`);
      res.json(info);
    },
  },
  {
    method: 'PUT',
    path: '/snapshots/{name}',
    scope: null,
    summary: 'Save the state under this name',
    body: 'none',
    handler: (req, res) => save(req.ctx, req.params.name, res),
  },
  {
    method: 'DELETE',
    path: '/snapshots/{name}',
    scope: null,
    summary: 'Delete a snapshot',
    handler: async (req, res) => {
      await deleteSnapshot(req.ctx, String(req.params.name));
      res.status(204).end();
    },
  },
  {
    method: 'POST',
    path: '/snapshots/{name}/restore',
    scope: null,
    summary: 'Replace the state with a snapshot',
    body: 'none',
    handler: async (req, res) => {
      await restoreSnapshot(req.ctx, String(req.params.name), hooks.replaceState);
      res.status(204).end();
    },
  },
];
