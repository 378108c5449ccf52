import { parseDuration, VirtualClock } from '../../clock.js';
import type { EmuContext } from '../../context.js';
import { badRequest } from '../errors.js';
import type { JsonSchema, Route } from '../../contract.js';

/** The emulator's virtual clock (every emulator has one; the context's clock is typed by its interface only). */
export function virtualClock(ctx: EmuContext): VirtualClock {
  if (!(ctx.clock instanceof VirtualClock)) throw new Error('This emulator has no virtual clock.');
  return ctx.clock;
}

export interface ClockRequest {
  /** ISO 8601: jump there (frozen unless `frozen: false`). */
  now?: string;
  /** `PT1H`, `90s`, `721h`: move forward. */
  advance?: string;
  /** Back to the machine's time. */
  real?: boolean;
  /** With `now`: false keeps the clock running from there. Alone: stop (true) or let it run (false) where it stands. */
  frozen?: boolean;
}

/** `{ now, mode }`, as `GET /_emu/clock` and health show it. */
export function presentClock(ctx: EmuContext): { now: string; mode: string } {
  const { now, mode } = virtualClock(ctx).state();
  return { now: now.toISOString(), mode };
}

/** Applies one clock request and resolves once what became due has run (expiry, retention, ...). */
export async function moveClock(ctx: EmuContext, request: ClockRequest): Promise<{ now: string; mode: string }> {
  const clock = virtualClock(ctx);
  const given = (['now', 'advance', 'real'] as const).filter((k) => request[k] !== undefined);
  if (given.length > 1) throw badRequest(`Give one of now, advance or real, not ${given.join(' and ')}.`);
  const [what] = given;
  if (what === 'now') {
    const at =
      typeof request.now === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(request.now) ? new Date(request.now) : undefined;
    if (!at || Number.isNaN(at.getTime()))
      throw badRequest(
        `now must be an ISO 8601 datetime like 2030-01-01T00:00:00Z; got ${JSON.stringify(request.now)}.`,
      );
    await clock.set(at, request.frozen ?? true);
  } else if (what === 'advance') {
    if (request.frozen !== undefined) throw badRequest('frozen goes with now, or alone; not with advance.');
    let ms: number;
    try {
      ms = parseDuration(request.advance!);
    } catch (err) {
      throw badRequest(`advance: ${(err as Error).message}`);
    }
    await clock.advance(ms);
  } else if (what === 'real') {
    if (request.frozen !== undefined) throw badRequest('frozen goes with now, or alone; not with real.');
    await clock.real();
  } else if (request.frozen !== undefined) {
    await clock.freeze(request.frozen);
  } else {
    throw badRequest(
      'Give one of now (ISO 8601), advance (a duration like PT1H or 90s), real (true) or frozen (true|false).',
    );
  }
  return presentClock(ctx);
}

/** The body of `PUT /_emu/clock`; which fields go together is `moveClock`'s to say. */
const clockRequestSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    now: { type: 'string' },
    advance: { type: 'string', description: 'a duration: PT1H, 90s, 721h' },
    real: { enum: [true] },
    frozen: { type: 'boolean' },
  },
};

/** `GET /_emu/clock` and `PUT /_emu/clock`. */
export const clockRoutes: Route[] = [
  {
    method: 'GET',
    path: '/clock',
    scope: null,
    summary: "The emulator's clock",
    handler: (req, res) => res.json(presentClock(req.ctx)),
  },
  {
    method: 'PUT',
    path: '/clock',
    scope: null,
    summary: 'Move, freeze or release the clock',
    bodySchema: clockRequestSchema,
    handler: async (req, res) => res.json(await moveClock(req.ctx, req.body as ClockRequest)),
  },
];
