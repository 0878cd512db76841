/**
 * Identity pages (issue 6): users, policies and service accounts, through the IAM store, each call checked
 * against the admin action the admin API requires for it (docs/admin-api.md), so the console grants nothing the
 * admin API would refuse. Policy documents are validated by the IAM policy parser, whose message names the fault.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AccountStatus } from '../../iam/index.js';
import { ADMIN_RESOURCE, requireAllowed, type Actor } from './actor.js';
import type { ConsoleContext } from './console-context.js';
import { ConsoleError } from './console-error.js';

/** Options of {@link identityRoutes}. */
export interface IdentityRoutesOptions {
  ctx: ConsoleContext;
}

const PREFIX = '/svc/console/api/iam';

function param(request: FastifyRequest, name: string): string {
  const v = (request.params as Record<string, string | undefined>)[name];
  if (v === undefined || v === '') throw new ConsoleError('InvalidRequest', `The ${name} is missing.`);
  return v;
}

function body(request: FastifyRequest): Record<string, unknown> {
  const b = request.body;
  if (typeof b !== 'object' || b === null || Array.isArray(b)) throw new ConsoleError('InvalidRequest', 'The request body must be a JSON object.');
  return b as Record<string, unknown>;
}

function stringList(v: unknown, what: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new ConsoleError('InvalidRequest', `${what} must be a list of names.`);
  return v as string[];
}

function status(v: unknown): AccountStatus {
  if (v !== 'enabled' && v !== 'disabled') throw new ConsoleError('InvalidRequest', 'The status is "enabled" or "disabled".');
  return v;
}

/** See the module comment. */
export const identityRoutes: FastifyPluginAsync<IdentityRoutesOptions> = async (app, { ctx }) => {
  const iam = ctx.services.iam;
  const allow = (actor: Actor, action: string): Actor => {
    requireAllowed(actor, action, ADMIN_RESOURCE);
    return actor;
  };

  app.get(`${PREFIX}/users`, async (request) => {
    allow(await ctx.actor(request), 'admin:ListUsers');
    return { users: iam.listUsers() };
  });
  app.post(`${PREFIX}/users`, async (request) => {
    allow(await ctx.mutator(request), 'admin:CreateUser');
    const b = body(request);
    return iam.addUser(String(b.accessKey ?? ''), String(b.secretKey ?? ''), { policies: stringList(b.policies, 'policies') });
  });
  app.delete(`${PREFIX}/users/:accessKey`, async (request, reply) => {
    allow(await ctx.mutator(request), 'admin:DeleteUser');
    await iam.removeUser(param(request, 'accessKey'));
    return reply.code(204).send();
  });
  app.put(`${PREFIX}/users/:accessKey/status`, async (request) => {
    const wanted = status(body(request).status);
    allow(await ctx.mutator(request), wanted === 'disabled' ? 'admin:DisableUser' : 'admin:EnableUser');
    return iam.setUserStatus(param(request, 'accessKey'), wanted);
  });
  app.put(`${PREFIX}/users/:accessKey/policies`, async (request) => {
    allow(await ctx.mutator(request), 'admin:AttachUserOrGroupPolicy');
    const accessKey = param(request, 'accessKey');
    const wanted = stringList(body(request).policies, 'policies');
    const user = iam.getUser(accessKey);
    if (user === undefined) throw new ConsoleError('NotFound', `The user ${accessKey} does not exist.`);
    const detach = user.policies.filter((p) => !wanted.includes(p));
    const attach = wanted.filter((p) => !user.policies.includes(p));
    if (attach.length > 0) await iam.attachPolicies(accessKey, attach);
    if (detach.length > 0) await iam.detachPolicies(accessKey, detach);
    return iam.getUser(accessKey);
  });

  app.get(`${PREFIX}/policies`, async (request) => {
    allow(await ctx.actor(request), 'admin:ListUserPolicies');
    return { policies: iam.listPolicies() };
  });
  app.put(`${PREFIX}/policies/:name`, async (request) => {
    allow(await ctx.mutator(request), 'admin:CreatePolicy');
    const policy = body(request).policy;
    if (typeof policy !== 'string') throw new ConsoleError('InvalidRequest', 'Send { "policy": "<JSON policy document>" }.');
    return iam.putPolicy(param(request, 'name'), policy);
  });
  app.delete(`${PREFIX}/policies/:name`, async (request, reply) => {
    allow(await ctx.mutator(request), 'admin:DeletePolicy');
    await iam.removePolicy(param(request, 'name'));
    return reply.code(204).send();
  });

  app.get(`${PREFIX}/service-accounts`, async (request) => {
    allow(await ctx.actor(request), 'admin:ListServiceAccounts');
    return { serviceAccounts: iam.listServiceAccounts() };
  });
  app.post(`${PREFIX}/service-accounts`, async (request) => {
    const actor = allow(await ctx.mutator(request), 'admin:CreateServiceAccount');
    const b = body(request);
    const parent = typeof b.parent === 'string' && b.parent !== '' ? b.parent : actor.session.sub;
    let expiration: Date | undefined;
    if (typeof b.expiration === 'string' && b.expiration !== '') {
      expiration = new Date(b.expiration);
      if (Number.isNaN(expiration.getTime())) throw new ConsoleError('InvalidRequest', 'The expiration is not a date.');
    }
    return iam.addServiceAccount({
      parent,
      ...(typeof b.policy === 'string' && b.policy.trim() !== '' ? { policy: b.policy } : {}),
      ...(expiration !== undefined ? { expiration } : {}),
    });
  });
  app.delete(`${PREFIX}/service-accounts/:accessKey`, async (request, reply) => {
    allow(await ctx.mutator(request), 'admin:RemoveServiceAccount');
    await iam.removeServiceAccount(param(request, 'accessKey'));
    return reply.code(204).send();
  });
};
