import type { Request, Response } from 'express';
import { route, type BodyRequest, type Route } from '../../contract.js';
import { locationOf } from '../../server/location.js';
import { pathParam, queryString } from '../../server/params.js';
import { createGroup, listGroups } from './groups.js';
import { listAnswer, listParams } from './listing.js';
import { createPolicy, requirePolicy, listPolicies, putUserResourcePolicy, userResourcePolicy } from './policies.js';
import { findGroup, type IamGroup, type IamPolicy, type IamUser } from './records.js';
import {
  groupCreateSchema,
  policyCreateSchema,
  policyIdsSchema,
  resourcePolicySchema,
  userCreateSchema,
  userDeleteSchema,
} from './schemas.js';
import { changeUserPolicies, createUser, deleteUsers, listUsers, userPaths } from './users.js';

const USER_SORT = [
  'id',
  'username',
  'email',
  'firstName',
  'lastName',
  'enabled',
  'path',
  'created',
  'updated',
] as const;
const GROUP_SORT = ['id', 'name', 'displayName', 'path', 'created', 'updated'] as const;
const POLICY_SORT = ['id', 'name', 'type', 'version'] as const;

const presentUser = ({ tenantId: _tenant, passwordHash: _hash, ...shown }: IamUser) => shown;
const presentGroup = ({ tenantId: _tenant, ...shown }: IamGroup) => shown;
const presentPolicy = ({ tenantId: _tenant, ...shown }: IamPolicy) => shown;

/** In lists only (spec 3): the name of the user's first group. */
function listedUser(req: Request) {
  return (user: IamUser) => {
    const first = user.groups[0] === undefined ? undefined : findGroup(req.ctx, user.tenantId, user.groups[0]);
    return { ...presentUser(user), ...(first ? { defaultGroup: first.name } : {}) };
  };
}

function listUsersRoute(req: Request, res: Response) {
  const users = listUsers(req.ctx, req.principal.tenantId, {
    email: queryString(req, 'email'),
    path: queryString(req, 'path'),
  });
  res.json(listAnswer(req, users, USER_SORT, listedUser(req)));
}

/** A handler that does its work, then answers 204. */
const noContent =
  <Body>(work: (req: BodyRequest<Body>) => Promise<unknown>) =>
  async (req: BodyRequest<Body>, res: Response) => {
    await work(req);
    res.status(204).end();
  };

/**
 * Spec 3: every answer of the identity and access manager wraps its records as `{ data }`; 400, 401, 403 have no body.
 */
const routeTable: Array<Omit<Route, 'bareErrors'>> = [
  route({
    method: 'POST',
    path: '/users',
    scope: 'iam:user:create',
    summary: 'Create a user',
    bodySchema: userCreateSchema,
    successStatus: 201,
    location: true,
    handler: async (req, res) => {
      const user = await createUser(req.ctx, req.principal.tenantId, req.body);
      res
        .status(201)
        .location(locationOf(req, 'users', user.id))
        .json({ data: presentUser(user) });
    },
  }),
  {
    method: 'GET',
    path: '/users',
    scope: 'iam:user:read',
    summary: 'List users',
    paging: 'data',
    query: [
      ...listParams(USER_SORT),
      { name: 'email', description: 'part of the address' },
      { name: 'path', description: 'the whole path' },
    ],
    handler: listUsersRoute,
  },
  {
    method: 'GET',
    path: '/users/paths',
    scope: 'iam:user:read',
    summary: 'List the distinct user paths',
    handler: (req, res) => res.json({ data: userPaths(req.ctx, req.principal.tenantId) }),
  },
  route({
    method: 'POST',
    path: '/users/delete',
    scope: 'iam:user:delete',
    summary: 'Delete users',
    bodySchema: userDeleteSchema,
    successStatus: 204,
    handler: noContent((req) => deleteUsers(req.ctx, req.principal.tenantId, req.body.userIDs)),
  }),
  route({
    method: 'POST',
    path: '/users/{userID}/policies/attach',
    scope: 'iam:user:policy:attach',
    summary: 'Attach policies to a user',
    bodySchema: policyIdsSchema,
    successStatus: 204,
    handler: noContent((req) =>
      changeUserPolicies(req.ctx, req.principal.tenantId, pathParam(req, 'userID'), req.body.policyIDs, true),
    ),
  }),
  route({
    method: 'POST',
    path: '/users/{userID}/policies/detach',
    scope: 'iam:user:policy:attach',
    summary: 'Detach policies from a user',
    bodySchema: policyIdsSchema,
    successStatus: 204,
    handler: noContent((req) =>
      changeUserPolicies(req.ctx, req.principal.tenantId, pathParam(req, 'userID'), req.body.policyIDs, false),
    ),
  }),
  {
    method: 'GET',
    path: '/users/{userID}/policy',
    scope: 'iam:user:policy:read',
    summary: "Get the user's resource policy",
    handler: (req, res) =>
      res.json({ data: userResourcePolicy(req.ctx, req.principal.tenantId, pathParam(req, 'userID')) }),
  },
  route({
    method: 'PUT',
    path: '/users/{userID}/policy',
    scope: 'iam:group:policy:update',
    summary: "Replace the user's resource policy",
    bodySchema: resourcePolicySchema,
    successStatus: 204,
    handler: noContent((req) =>
      putUserResourcePolicy(req.ctx, req.principal.tenantId, pathParam(req, 'userID'), req.body.statements),
    ),
  }),
  route({
    method: 'POST',
    path: '/groups',
    scope: 'iam:group:create',
    summary: 'Create a group',
    bodySchema: groupCreateSchema,
    successStatus: 201,
    location: true,
    handler: async (req, res) => {
      const group = await createGroup(req.ctx, req.principal.tenantId, req.body);
      res
        .status(201)
        .location(locationOf(req, 'groups', group.id))
        .json({ data: presentGroup(group) });
    },
  }),
  {
    method: 'GET',
    path: '/groups',
    scope: 'iam:group:read',
    summary: 'List groups',
    paging: 'data',
    query: listParams(GROUP_SORT),
    handler: (req, res) =>
      res.json(listAnswer(req, listGroups(req.ctx, req.principal.tenantId), GROUP_SORT, presentGroup)),
  },
  route({
    method: 'POST',
    path: '/policies',
    scope: 'iam:policy:create',
    summary: 'Create an identity policy (emulator addition)',
    addition: true,
    bodySchema: policyCreateSchema,
    successStatus: 201,
    location: true,
    handler: async (req, res) => {
      const policy = await createPolicy(req.ctx, req.principal.tenantId, req.body);
      res
        .status(201)
        .location(locationOf(req, 'policies', policy.id))
        .json({ data: presentPolicy(policy) });
    },
  }),
  {
    method: 'GET',
    path: '/policies',
    scope: 'iam:policy:read',
    summary: 'List identity policies (emulator addition)',
    addition: true,
    paging: 'data',
    query: listParams(POLICY_SORT),
    handler: (req, res) =>
      res.json(listAnswer(req, listPolicies(req.ctx, req.principal.tenantId), POLICY_SORT, presentPolicy)),
  },
  {
    method: 'GET',
    path: '/policies/{policyID}',
    scope: 'iam:policy:read',
    summary: 'Get an identity policy (emulator addition)',
    addition: true,
    handler: (req, res) =>
      res.json({ data: presentPolicy(requirePolicy(req.ctx, req.principal.tenantId, pathParam(req, 'policyID'))) }),
  },
];

export const routes: Route[] = routeTable.map((route) => ({ ...route, bareErrors: true }));
