import { randomBytes } from 'node:crypto';
import type { EmuContext } from '../../context.js';
import { badRequest, conflict, notFound } from '../../server/errors.js';
import type { FromSchema } from '../../contract.js';
import { collection, type Mutation } from '../../store/index.js';
import type { recipientRecord } from './schemas.js';
import { announceMail, mailMutations, type OutgoingMail } from './mail.js';

export const RECIPIENTS = collection<Recipient>('notification-recipients').index(
  'tenant',
  (r) => `${r.tenantId}\u0000${r.notificationType}`,
);

/** The notification types the connector knows (spec 2: the value `email` appears; nothing else is shown). */
export const NOTIFICATION_TYPES = ['email'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export type RecipientState = 'VERIFIED' | 'UNVERIFIED';

/**
 * `verificationToken`: the token of the newest verification link; a resend replaces it. The record schema names only
 * the string fields; narrowing them or adding the others would refuse imports it takes today, so the type adds them.
 */
export type Recipient = FromSchema<typeof recipientRecord> & {
  id: number;
  notificationType: NotificationType;
  state: RecipientState;
  verifiedAt?: string;
};

/** What a caller sees of a recipient (spec 2, "Email notification recipient"). */
export const presentRecipient = (r: Recipient) => ({ id: r.id, recipient: r.recipient, state: r.state });

export function checkNotificationType(type: string): NotificationType {
  if (!(NOTIFICATION_TYPES as readonly string[]).includes(type)) {
    throw notFound(
      `There is no notification type ${type}; the notification types are ${NOTIFICATION_TYPES.join(', ')}.`,
    );
  }
  return type as NotificationType;
}

/** The tenant's recipients of one type, oldest first. */
export function listRecipients(
  ctx: EmuContext,
  tenantId: string,
  type: NotificationType,
  state?: RecipientState,
): Recipient[] {
  return RECIPIENTS.lookup(ctx, 'tenant', `${tenantId}\u0000${type}`)
    .filter((r) => state === undefined || r.state === state)
    .sort((a, b) => a.id - b.id);
}

/** The tenant's recipient; another tenant's, or one of another type, is as absent as one that does not exist. */
export function findRecipient(
  ctx: EmuContext,
  tenantId: string,
  type: NotificationType,
  id: number,
): Recipient | undefined {
  const recipient = RECIPIENTS.get(ctx, String(id));
  return recipient?.tenantId === tenantId && recipient.notificationType === type ? recipient : undefined;
}

export function requireRecipient(ctx: EmuContext, tenantId: string, type: NotificationType, id: number): Recipient {
  const recipient = findRecipient(ctx, tenantId, type, id);
  if (!recipient) throw notFound(`There is no ${type} recipient ${id}.`);
  return recipient;
}

const newToken = () => randomBytes(24).toString('base64url');

/**
 * Where a verification link points: the emulator's own `GET .../verification/{token}`, at the address the caller
 * used (`linkBase` is `{schema}://{host}/<prefix>/api/v1`).
 */
export const verificationLink = (linkBase: string, r: Recipient) =>
  `${linkBase}/notification-types/${r.notificationType}/recipients/${r.id}/verification/` +
  `${encodeURIComponent(r.verificationToken)}`;

function verificationMail(linkBase: string, r: Recipient): OutgoingMail {
  const link = verificationLink(linkBase, r);
  return {
    tenantId: r.tenantId,
    to: r.recipient,
    subject: 'Confirm your e-mail address for notifications',
    text:
      `Hello,\n\nthis address was added as a notification recipient. To receive notifications, confirm it by ` +
      `opening this link:\n\n${link}\n\nIf you did not expect this e-mail, ignore it.\n`,
    links: [link],
  };
}

/** Creates an UNVERIFIED recipient and captures its verification e-mail, in one commit. */
export async function createRecipient(
  ctx: EmuContext,
  tenantId: string,
  type: NotificationType,
  address: string,
  linkBase: string,
): Promise<Recipient> {
  const taken = listRecipients(ctx, tenantId, type).find((r) => r.recipient.toLowerCase() === address.toLowerCase());
  if (taken) throw conflict(`${address} is already a recipient of ${type} notifications (id ${taken.id}).`);
  const now = ctx.clock.nowIso();
  const recipient: Recipient = {
    tenantId,
    id: RECIPIENTS.nextId(ctx),
    notificationType: type,
    recipient: address,
    state: 'UNVERIFIED',
    verificationToken: newToken(),
    createdAt: now,
    updatedAt: now,
  };
  await commitWithMail(
    ctx,
    [RECIPIENTS.putMutation(String(recipient.id), recipient)],
    verificationMail(linkBase, recipient),
  );
  return recipient;
}

/** Sends a new verification e-mail; its link replaces the earlier ones. A verified recipient needs none (400). */
export async function resendVerification(
  ctx: EmuContext,
  tenantId: string,
  type: NotificationType,
  id: number,
  linkBase: string,
): Promise<Recipient> {
  const current = requireRecipient(ctx, tenantId, type, id);
  if (current.state === 'VERIFIED')
    throw badRequest(`Recipient ${id} (${current.recipient}) is verified already; there is nothing to resend.`);
  const next: Recipient = { ...current, verificationToken: newToken(), updatedAt: ctx.clock.nowIso() };
  await commitWithMail(ctx, [RECIPIENTS.putMutation(String(id), next)], verificationMail(linkBase, next));
  return next;
}

async function commitWithMail(ctx: EmuContext, mutations: Mutation[], mail: OutgoingMail): Promise<void> {
  const { mutations: mailWrites, captured } = mailMutations(ctx, mail);
  await ctx.store.commit([...mutations, ...mailWrites]);
  announceMail(ctx, captured);
}

const verified = (ctx: EmuContext, r: Recipient): Recipient => {
  if (r.state === 'VERIFIED') return r;
  const now = ctx.clock.nowIso();
  return { ...r, state: 'VERIFIED', verifiedAt: now, updatedAt: now };
};

/**
 * The link of a verification e-mail: no token of the caller, so the recipient is found by its id alone and the
 * link's token proves the mail was read. Opening the link again answers 200 as well.
 */
export async function verifyByToken(
  ctx: EmuContext,
  type: NotificationType,
  id: number,
  token: string,
): Promise<Recipient> {
  const recipient = RECIPIENTS.get(ctx, String(id));
  if (!recipient || recipient.notificationType !== type) throw notFound(`There is no ${type} recipient ${id}.`);
  if (recipient.verificationToken !== token) {
    throw badRequest(
      `The verification token is not valid for recipient ${id}: it is mistyped, or a newer verification ` +
        `e-mail replaced it.`,
    );
  }
  const next = verified(ctx, recipient);
  if (next !== recipient) await RECIPIENTS.put(ctx, String(id), next);
  return next;
}

/** Verifies every listed recipient, or none when one of them is unknown (404 naming them). */
export async function verifyByIds(
  ctx: EmuContext,
  tenantId: string,
  type: NotificationType,
  ids: number[],
): Promise<Recipient[]> {
  const found = ids.map((id) => findRecipient(ctx, tenantId, type, id));
  const missing = ids.filter((_id, i) => !found[i]);
  if (missing.length > 0)
    throw notFound(`There is no ${type} recipient ${[...new Set(missing)].join(', ')}; no recipient was verified.`);
  const next = (found as Recipient[]).map((r) => verified(ctx, r));
  const changed = new Map(next.filter((r, i) => r !== found[i]).map((r) => [r.id, r]));
  if (changed.size > 0)
    await ctx.store.commit([...changed.values()].map((r) => RECIPIENTS.putMutation(String(r.id), r)));
  return next.map((r) => changed.get(r.id) ?? r);
}

export async function deleteRecipient(
  ctx: EmuContext,
  tenantId: string,
  type: NotificationType,
  id: number,
): Promise<void> {
  requireRecipient(ctx, tenantId, type, id);
  await RECIPIENTS.delete(ctx, String(id));
}
