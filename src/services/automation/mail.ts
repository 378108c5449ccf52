import { runtimeOf, type EmuContext } from '../../context.js';
import { MAIL_CAPTURED, STATE_REPLACED } from '../../server/events.js';
import type { FromSchema } from '../../contract.js';
import { collection, type Mutation } from '../../store/index.js';
import type { capturedMailRecord } from './schemas.js';

/**
 * Every e-mail the platform would send is captured here instead: kept in the store (it survives a restart, a reset
 * or an import replaces it with the state), the newest MAX_CAPTURED_MAIL only.
 */
export const CAPTURED_MAIL = collection<CapturedMail>('captured-mail');
export const MAX_CAPTURED_MAIL = 1000;
/** The longest a `GET /_emu/mail?wait=` may hold a request open. */
export const MAX_MAIL_WAIT_SECONDS = 60;

const MAIL_EVENT = MAIL_CAPTURED;

export interface OutgoingMail {
  tenantId: string;
  to: string;
  subject: string;
  text: string;
  links: string[];
}

/** The record schema names the string fields; `id` and `links` are not in it (adding them would refuse old imports). */
export type CapturedMail = FromSchema<typeof capturedMailRecord> & OutgoingMail & { id: number };

/** The answer shape of `GET /_emu/mail`: newest last. */
export const presentMail = (m: CapturedMail) => ({
  id: m.id,
  tenantId: m.tenantId,
  to: m.to,
  subject: m.subject,
  text: m.text,
  links: m.links,
  sentAt: m.sentAt,
});

export function listMail(ctx: EmuContext, filter: { to?: string; after?: number } = {}): CapturedMail[] {
  const to = filter.to?.toLowerCase();
  return [...CAPTURED_MAIL.values(ctx)]
    .filter(
      (m) => (to === undefined || m.to.toLowerCase() === to) && (filter.after === undefined || m.id > filter.after),
    )
    .sort((a, b) => a.id - b.id);
}

/** The writes that capture one mail (and drop the oldest past the bound): committed with the change that sends it. */
export function mailMutations(ctx: EmuContext, mail: OutgoingMail): { mutations: Mutation[]; captured: CapturedMail } {
  const captured: CapturedMail = { ...mail, id: CAPTURED_MAIL.nextId(ctx), sentAt: ctx.clock.nowIso() };
  const mutations: Mutation[] = [CAPTURED_MAIL.putMutation(String(captured.id), captured)];
  const excess = CAPTURED_MAIL.count(ctx) + 1 - MAX_CAPTURED_MAIL;
  if (excess > 0) {
    for (const old of listMail(ctx).slice(0, excess)) mutations.push(CAPTURED_MAIL.deleteMutation(String(old.id)));
  }
  return { mutations, captured };
}

/** After the commit: wakes the requests waiting for new mail. */
export function announceMail(ctx: EmuContext, mail: CapturedMail): void {
  ctx.events.emit(MAIL_EVENT, mail);
}

export async function clearMail(ctx: EmuContext): Promise<number> {
  const ids = [...CAPTURED_MAIL.values(ctx)].map((m) => String(m.id));
  if (ids.length > 0) await ctx.store.commit(ids.map((id) => CAPTURED_MAIL.deleteMutation(id)));
  return ids.length;
}

const waiters = (ctx: EmuContext) => runtimeOf(ctx, 'automation:mail-waiters', () => new Set<() => void>());

/**
 * The mails newer than `after`, waiting up to `ms` for one to arrive when there are none yet (a long poll, never a
 * loop over the store). An `after` past the newest mail means the ids started again (a reset, an import): it then
 * counts from the newest mail there is. A replaced state, a stop or a closed connection end the wait with none.
 */
export function mailAfter(
  ctx: EmuContext,
  after: number,
  ms: number,
  onClose: (listener: () => void) => () => void,
  to?: string,
): Promise<CapturedMail[]> {
  const all = listMail(ctx);
  const newest = all.at(-1)?.id ?? 0;
  const since = Math.min(after, newest);
  const ready = listMail(ctx, { to, after: since });
  if (ready.length > 0 || ms <= 0) return Promise.resolve(ready);
  return new Promise((resolve) => {
    const finish = (mail: CapturedMail[]) => {
      clearTimeout(timer);
      ctx.events.off(MAIL_EVENT, onMail);
      ctx.events.off(STATE_REPLACED, onStop);
      removeClose();
      waiters(ctx).delete(onStop);
      resolve(mail);
    };
    const onMail = () => {
      const fresh = listMail(ctx, { to, after: since });
      if (fresh.length > 0) finish(fresh);
    };
    const onStop = () => finish([]);
    const timer = setTimeout(onStop, ms);
    ctx.events.on(MAIL_EVENT, onMail);
    ctx.events.on(STATE_REPLACED, onStop);
    const removeClose = onClose(onStop);
    waiters(ctx).add(onStop);
  });
}

/** On stop: every waiting request answers now instead of holding the shutdown. */
export function releaseMailWaiters(ctx: EmuContext): void {
  for (const stop of [...waiters(ctx)]) stop();
}

export function mailWaiterCount(ctx: EmuContext): number {
  return waiters(ctx).size;
}
