import type { Request, Response } from 'express';
import { route, type BodyRequest, type Route } from '../../contract.js';
import { badRequest } from '../../server/errors.js';
import { schemaProblem } from '../../schema/json-schema.js';
import { locationOf } from '../../server/location.js';
import { pathParam } from '../../server/params.js';
import {
  changeCredentialPassword,
  changeCredentialState,
  createBasicCredential,
  requireBasicCredential,
  listBasicCredentials,
  type BasicCredential,
} from './basic-credentials.js';
import {
  basicCredentialsCreateSchema,
  passwordChangeSchema,
  stateChangeSchema,
  tlsSettingSchema,
  x509CreateSchema,
  x509GenerateSchema,
  type BasicCredentialsCreate,
  type X509Generate,
} from './schemas.js';
import { presentTlsSetting, setClientAuth } from './tls-settings.js';
import {
  changeX509State,
  createX509Credential,
  requireX509Credential,
  listX509Credentials,
  type X509Credential,
} from './x509-credentials.js';
import { generateX509Credential } from './x509-generate.js';
import { authorityOf } from '../../tls/authority.js';

/** A credential as the spec shows it: never its password or hash. */
function presentBasic({ tenantId: _tenant, passwordHash: _hash, ...shown }: BasicCredential) {
  return shown;
}

function presentX509({ tenantId: _tenant, fingerprint: _fingerprint, certificate: _pem, ...shown }: X509Credential) {
  return shown;
}

async function createBasic(req: BodyRequest<BasicCredentialsCreate>, res: Response) {
  const { credential, password } = await createBasicCredential(req.ctx, req.principal.tenantId, req.body);
  res
    .status(201)
    .location(locationOf(req, 'basic-credentials', credential.id))
    .set('Cache-Control', 'no-store')
    .json({ ...presentBasic(credential), password });
}

const PEM_TYPES = ['application/x-pem-file', 'application/pem-certificate-chain', 'text/plain'];

/** The PEM of `POST /x509-credentials`: the body itself (`application/x-pem-file`), or `{ "certificate": "<PEM>" }`. */
function certificateOf(req: Request): string {
  const body = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
  if (body.trim() === '')
    throw badRequest(
      'The request body is missing: send { "certificate": "<PEM>" }, or the PEM with Content-Type: ' +
        'application/x-pem-file.',
    );
  if (req.is(PEM_TYPES)) return body;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (err) {
    throw badRequest(
      `The request body is not valid JSON: ${(err as Error).message}. A bare PEM needs Content-Type: ` +
        `application/x-pem-file.`,
    );
  }
  const problem = schemaProblem(x509CreateSchema, parsed);
  if (problem) throw badRequest(`Invalid request body: ${problem}.`);
  return (parsed as { certificate: string }).certificate;
}

async function createX509(req: Request, res: Response) {
  const credential = await createX509Credential(req.ctx, req.principal.tenantId, certificateOf(req));
  res
    .status(201)
    .location(locationOf(req, 'x509-credentials', credential.id))
    .json(presentX509(credential));
}

async function generateX509(req: BodyRequest<X509Generate>, res: Response) {
  const { credential, certificateChain, privateKey } = await generateX509Credential(
    req.ctx,
    req.principal.tenantId,
    req.body,
  );
  res
    .status(201)
    .location(locationOf(req, 'x509-credentials', credential.id))
    .set('Cache-Control', 'no-store')
    .json({ ...presentX509(credential), certificateChain, privateKey });
}

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/basic-credentials',
    scope: 'tenant:basic-credentials:read',
    summary: 'List basic credentials (never their passwords)',
    handler: (req, res) => res.json(listBasicCredentials(req.ctx, req.principal.tenantId).map(presentBasic)),
  },
  route({
    method: 'POST',
    path: '/basic-credentials',
    scope: 'tenant:basic-credentials:create',
    summary: 'Create basic credentials (username and password generated when absent)',
    location: true,
    bodySchema: basicCredentialsCreateSchema,
    successStatus: 201,
    handler: createBasic,
  }),
  {
    method: 'GET',
    path: '/basic-credentials/{id}',
    scope: 'tenant:basic-credentials:read',
    summary: 'Get basic credentials (emulator addition)',
    addition: true,
    handler: (req, res) =>
      res.json(presentBasic(requireBasicCredential(req.ctx, req.principal.tenantId, pathParam(req, 'id')))),
  },
  route({
    method: 'PATCH',
    path: '/basic-credentials/{id}/state',
    scope: 'tenant:basic-credentials:update',
    summary: 'Change the state of basic credentials',
    bodySchema: stateChangeSchema,
    successStatus: 204,
    handler: async (req, res) => {
      await changeCredentialState(req.ctx, req.principal.tenantId, pathParam(req, 'id'), req.body.state);
      res.status(204).end();
    },
  }),
  route({
    method: 'PATCH',
    path: '/basic-credentials/{id}/password',
    scope: 'tenant:basic-credentials:update',
    summary: 'Change the password of basic credentials (generated when absent)',
    bodySchema: passwordChangeSchema,
    handler: async (req, res) => {
      res.set('Cache-Control', 'no-store').json({
        password: await changeCredentialPassword(
          req.ctx,
          req.principal.tenantId,
          pathParam(req, 'id'),
          req.body.password,
        ),
      });
    },
  }),
  {
    method: 'GET',
    path: '/x509-credentials',
    scope: 'tenant:x509-credentials:read',
    summary: 'List X.509 credentials',
    handler: (req, res) => res.json(listX509Credentials(req.ctx, req.principal.tenantId).map(presentX509)),
  },
  {
    method: 'POST',
    path: '/x509-credentials',
    scope: 'tenant:x509-credentials:create',
    summary: 'Register an X.509 certificate (emulator addition): { "certificate": "<PEM>" } or the PEM itself',
    addition: true,
    location: true,
    body: 'raw',
    successStatus: 201,
    handler: createX509,
  },
  {
    method: 'GET',
    path: '/x509-credentials/{id}',
    scope: 'tenant:x509-credentials:read',
    summary: 'Get X.509 credentials (emulator addition)',
    addition: true,
    handler: (req, res) =>
      res.json(presentX509(requireX509Credential(req.ctx, req.principal.tenantId, pathParam(req, 'id')))),
  },
  route({
    method: 'POST',
    path: '/x509-credentials/generate',
    scope: 'tenant:x509-credentials:create',
    summary:
      'Generate a key pair and a client certificate the local authority signs (the private key is returned once)',
    addition: true,
    location: true,
    bodySchema: x509GenerateSchema,
    successStatus: 201,
    handler: generateX509,
  }),
  route({
    method: 'PATCH',
    path: '/x509-credentials/{id}/state',
    scope: 'tenant:x509-credentials:update',
    summary: 'Change the state of X.509 credentials (a suspension or revocation disconnects the clients using them)',
    addition: true,
    bodySchema: stateChangeSchema,
    successStatus: 204,
    handler: async (req, res) => {
      await changeX509State(req.ctx, req.principal.tenantId, pathParam(req, 'id'), req.body.state);
      res.status(204).end();
    },
  }),
  {
    method: 'GET',
    path: '/root-certificate',
    scope: 'tenant:x509-credentials:read',
    summary:
      'The root certificate (PEM) of the local certificate authority: what TLS clients trust (emulator addition)',
    addition: true,
    handler: async (req, res) => {
      res.type('application/x-pem-file').send((await authorityOf(req.ctx)).certificate);
    },
  },
  {
    method: 'GET',
    path: '/tls-settings',
    scope: 'tenant:x509-credentials:read',
    summary: "The tenant's TLS client certificate authentication for MQTT over TLS (emulator addition)",
    addition: true,
    handler: (req, res) => res.json(presentTlsSetting(req.ctx, req.principal.tenantId)),
  },
  route({
    method: 'PUT',
    path: '/tls-settings',
    scope: 'tenant:x509-credentials:update',
    summary:
      "Switch the tenant's TLS client certificate authentication: required, off, or null for " +
      '--tls-client-auth (emulator addition)',
    addition: true,
    bodySchema: tlsSettingSchema,
    handler: async (req, res) => {
      await setClientAuth(req.ctx, req.principal.tenantId, req.body.clientAuth);
      res.json(presentTlsSetting(req.ctx, req.principal.tenantId));
    },
  }),
];
