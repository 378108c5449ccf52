import type { Readable } from 'node:stream';
import { runtimeOf, type EmuContext } from '../../context.js';
import { HttpError } from '../../server/errors.js';
import { BlobFiles, PayloadTooLarge } from '../../store/blob-files.js';
import type { FromSchema } from '../../contract.js';
import { collection } from '../../store/index.js';
import type { Endpoint } from '../epr/endpoints.js';
import type { blobRecord, fileRecord } from './schemas.js';

export const BLOBS = collection<BlobRecord>('binary-data')
  .index('app', (p) => p.appName)
  .index('endpoint', (p) => p.endpointId);
export const FILES = collection<FileRecord>('files')
  .index('app', (p) => p.appName)
  .index('endpoint', (p) => p.endpointId);

/** `size` is not in the record schemas: adding it would refuse imports they take today, so the types add it. */
export type BlobRecord = FromSchema<typeof blobRecord> & { size: number };
export type FileRecord = FromSchema<typeof fileRecord> & { size: number };
/** What blobs and files have in common. */
type Payload = BlobRecord | FileRecord;

export const payloadFiles = (ctx: EmuContext) =>
  runtimeOf(ctx, 'bcx:payload-files', () => new BlobFiles(ctx.store.dataDir));

/**
 * Drops payload files no record names (a crash between file and record, a reset, an import). Never on a read-only
 * store.
 */
export async function removeUnlistedPayloads(ctx: EmuContext): Promise<void> {
  if (ctx.store.isReadOnly) return;
  const listed = new Set<string>();
  for (const collection of [BLOBS, FILES]) for (const p of collection.values(ctx)) listed.add(p.file);
  await payloadFiles(ctx).removeUnlisted(listed);
}

async function receive(ctx: EmuContext, source: Readable): Promise<{ file: string; size: number }> {
  try {
    return await payloadFiles(ctx).write(source, ctx.config.uploadLimit);
  } catch (err) {
    if (err instanceof PayloadTooLarge) {
      throw new HttpError(
        413,
        `The upload is larger than the limit of ${err.limit} bytes (flag --upload-limit); nothing was kept.`,
      );
    }
    throw err;
  }
}

/** A new blob of the endpoint: the payload is on disk (fsynced) before its record is committed. */
export async function storeBlob(
  ctx: EmuContext,
  endpoint: Endpoint,
  name: string,
  source: Readable,
): Promise<BlobRecord> {
  const { file, size } = await receive(ctx, source);
  const id = String(BLOBS.nextId(ctx));
  const blob: BlobRecord = {
    tenantId: endpoint.tenantId,
    id,
    appName: endpoint.appName,
    endpointId: endpoint.endpointId,
    name,
    size,
    createdDate: ctx.clock.nowIso(),
    file,
  };
  await BLOBS.put(ctx, id, blob);
  return blob;
}

/** Endpoint ids have no `/`, so the first `/` ends it. */
const fileId = (endpointId: string, name: string) => `${endpointId}/${name}`;

/** Uploads or overwrites one of the endpoint's files; `createdDate` stays that of the first upload. */
export async function storeFile(
  ctx: EmuContext,
  endpoint: Endpoint,
  name: string,
  source: Readable,
): Promise<FileRecord> {
  const { file, size } = await receive(ctx, source);
  const id = fileId(endpoint.endpointId, name);
  const previous = FILES.get(ctx, id);
  const now = ctx.clock.nowIso();
  const record: FileRecord = {
    tenantId: endpoint.tenantId,
    appName: endpoint.appName,
    endpointId: endpoint.endpointId,
    name,
    size,
    createdDate: previous?.createdDate ?? now,
    updatedDate: now,
    file,
  };
  await FILES.put(ctx, id, record);
  if (previous) await payloadFiles(ctx).remove(previous.file);
  return record;
}

/** Blob ids count up, so they order blobs created in the same millisecond. */
const blobOrder = (a: BlobRecord, b: BlobRecord) =>
  a.createdDate.localeCompare(b.createdDate) || Number(a.id) - Number(b.id);
const fileOrder = (a: FileRecord, b: FileRecord) =>
  a.createdDate.localeCompare(b.createdDate) ||
  a.endpointId.localeCompare(b.endpointId) ||
  a.name.localeCompare(b.name);

/** What the three lists select by (spec 2); dates compare with `createdDate`, both bounds inclusive. */
export interface PayloadQuery {
  endpointIds?: string[];
  /** Part of the name, any case. */
  name?: string;
  from?: number;
  to?: number;
  descending: boolean;
}

function select<T extends Payload>(records: T[], query: PayloadQuery, order: (a: T, b: T) => number): T[] {
  const endpoints = query.endpointIds?.length ? new Set(query.endpointIds) : undefined;
  const part = query.name?.toLowerCase();
  const selected = records.filter((r) => {
    if (endpoints && !endpoints.has(r.endpointId)) return false;
    if (part && !r.name.toLowerCase().includes(part)) return false;
    const created = Date.parse(r.createdDate);
    return (query.from === undefined || created >= query.from) && (query.to === undefined || created <= query.to);
  });
  selected.sort(order);
  return query.descending ? selected.reverse() : selected;
}

export function blobsOfApplication(
  ctx: EmuContext,
  tenantId: string,
  appName: string,
  query: PayloadQuery,
): BlobRecord[] {
  return select(
    BLOBS.lookup(ctx, 'app', appName).filter((b) => b.tenantId === tenantId),
    query,
    blobOrder,
  );
}

export function filesOfApplication(
  ctx: EmuContext,
  tenantId: string,
  appName: string,
  query: PayloadQuery,
): FileRecord[] {
  return select(
    FILES.lookup(ctx, 'app', appName).filter((f) => f.tenantId === tenantId),
    query,
    fileOrder,
  );
}

export function findBlob(ctx: EmuContext, endpoint: Endpoint, blobId: string): BlobRecord | undefined {
  const blob = BLOBS.get(ctx, blobId);
  return blob?.endpointId === endpoint.endpointId && blob.tenantId === endpoint.tenantId ? blob : undefined;
}

export function newestBlob(ctx: EmuContext, endpoint: Endpoint): BlobRecord | undefined {
  let newest: BlobRecord | undefined;
  for (const blob of BLOBS.lookup(ctx, 'endpoint', endpoint.endpointId))
    if (!newest || blobOrder(blob, newest) > 0) newest = blob;
  return newest;
}

export function findFile(ctx: EmuContext, endpoint: Endpoint, name: string): FileRecord | undefined {
  return FILES.get(ctx, fileId(endpoint.endpointId, name));
}

/**
 * Deletes the record first: a crash before the file is removed leaves a file nobody lists, dropped at the next start.
 */
export async function deleteBlob(ctx: EmuContext, blob: BlobRecord): Promise<void> {
  await BLOBS.delete(ctx, blob.id);
  await payloadFiles(ctx).remove(blob.file);
}
