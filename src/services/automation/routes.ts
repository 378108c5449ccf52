import type { Request, Response } from 'express';
import { route, type BodyRequest, type Route } from '../../contract.js';
import { requestOrigin } from '../../server/host-check.js';
import { locationOf } from '../../server/location.js';
import { pathInt, pathParam, queryEnum } from '../../server/params.js';
import {
  checkNotificationType,
  createRecipient,
  deleteRecipient,
  requireRecipient,
  listRecipients,
  presentRecipient,
  resendVerification,
  verifyByIds,
  verifyByToken,
} from './recipients.js';
import {
  AUTOMATIONS,
  recipientCreationSchema,
  recipientIdsSchema,
  type RecipientCreation,
  type RecipientIds,
} from './schemas.js';

const typeOf = (req: Request) => checkNotificationType(pathParam(req, 'notificationType'));
/** `{schema}://{host}/<prefix>/api/v1`, where the verification links of this request's e-mails point. */
const linkBase = (req: Request) => `${requestOrigin(req)}${req.baseUrl}`;

function list(req: Request, res: Response) {
  const type = typeOf(req);
  const state = queryEnum(req, 'state', ['VERIFIED', 'UNVERIFIED'] as const);
  res.json(listRecipients(req.ctx, req.principal.tenantId, type, state).map(presentRecipient));
}

async function create(req: BodyRequest<RecipientCreation>, res: Response) {
  const type = typeOf(req);
  const recipient = await createRecipient(req.ctx, req.principal.tenantId, type, req.body.recipient, linkBase(req));
  res
    .status(201)
    .location(locationOf(req, 'notification-types', type, 'recipients', recipient.id))
    .json(presentRecipient(recipient));
}

function getOne(req: Request, res: Response) {
  res.json(
    presentRecipient(requireRecipient(req.ctx, req.principal.tenantId, typeOf(req), pathInt(req, 'recipientId'))),
  );
}

async function deleteOne(req: Request, res: Response) {
  await deleteRecipient(req.ctx, req.principal.tenantId, typeOf(req), pathInt(req, 'recipientId'));
  res.status(204).end();
}

async function resend(req: Request, res: Response) {
  const recipient = await resendVerification(
    req.ctx,
    req.principal.tenantId,
    typeOf(req),
    pathInt(req, 'recipientId'),
    linkBase(req),
  );
  res.json(presentRecipient(recipient));
}

async function verifyLink(req: Request, res: Response) {
  const recipient = await verifyByToken(req.ctx, typeOf(req), pathInt(req, 'recipientId'), pathParam(req, 'token'));
  res.json(presentRecipient(recipient));
}

async function verifyIds(req: BodyRequest<RecipientIds>, res: Response) {
  const recipients = await verifyByIds(req.ctx, req.principal.tenantId, typeOf(req), req.body);
  res.json(recipients.map(presentRecipient));
}

const RECIPIENTS = '/notification-types/{notificationType}/recipients';

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/automations',
    scope: null,
    summary: 'List the automation types',
    handler: (_req, res) => res.json(AUTOMATIONS),
  },
  {
    method: 'GET',
    path: RECIPIENTS,
    scope: 'tenant:notification-recipient:read',
    summary: 'List notification recipients',
    query: [{ name: 'state', description: 'VERIFIED or UNVERIFIED', schema: { enum: ['VERIFIED', 'UNVERIFIED'] } }],
    handler: list,
  },
  route({
    method: 'POST',
    path: RECIPIENTS,
    scope: 'tenant:notification-recipient:create',
    summary: 'Add a recipient (UNVERIFIED) and send it a verification e-mail',
    location: true,
    bodySchema: recipientCreationSchema,
    successStatus: 201,
    handler: create,
  }),
  {
    method: 'GET',
    path: `${RECIPIENTS}/{recipientId}`,
    scope: 'tenant:notification-recipient:read',
    summary: 'Get a recipient',
    handler: getOne,
  },
  {
    method: 'DELETE',
    path: `${RECIPIENTS}/{recipientId}`,
    scope: 'tenant:notification-recipient:update',
    summary: 'Delete a recipient',
    successStatus: 204,
    handler: deleteOne,
  },
  {
    method: 'POST',
    path: `${RECIPIENTS}/{recipientId}/verification`,
    scope: 'tenant:notification-recipient:read',
    summary: 'Send the verification e-mail again',
    body: 'none',
    handler: resend,
  },
  {
    method: 'GET',
    path: `${RECIPIENTS}/{recipientId}/verification/{token}`,
    scope: null,
    summary: 'Verify a recipient by the link of its e-mail',
    handler: verifyLink,
  },
  route({
    method: 'PUT',
    path: `${RECIPIENTS}/verify`,
    scope: 'tenant:notification-recipient:update',
    summary: 'Verify recipients by their ids (all or none)',
    bodySchema: recipientIdsSchema,
    handler: verifyIds,
  }),
];
