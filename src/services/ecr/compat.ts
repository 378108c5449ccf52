import type { EmuContext } from '../../context.js';

/**
 * The two response shapes of the registry's configuration operations (spec 2), chosen with `--compat ecr=<shape>`:
 * `envelope` answers with configuration records; `raw` answers with the stored payload and its `Content-Type`, and
 * PUT with 201 `Location` / 204. `raw` is the default: it is the later revision (the one that keeps content types).
 */
export const compatRevisions = ['envelope', 'raw'] as const;
export type ResponseShape = (typeof compatRevisions)[number];
export const defaultCompatRevision: ResponseShape = 'raw';

export const responseShape = (ctx: EmuContext): ResponseShape =>
  ctx.config.compat.ecr === 'envelope' ? 'envelope' : defaultCompatRevision;
