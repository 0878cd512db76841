/** `rc admin user …` and `rc admin policy …`: IAM through the admin API (docs/admin-api.md "IAM calls"). */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { type AdminClient, adminClientFor } from '../admin-client.js';
import type { RcContext } from '../context.js';
import { EXIT, RcError, UsageError } from '../errors.js';
import { padEnd } from '../format.js';
import { println } from '../io.js';
import { parseRemote } from '../paths.js';

/** A user as the admin API answers it. */
export interface AdminUser {
  accessKey: string;
  status: string;
  policies: string[];
  groups: string[];
}

/** The admin client of `aliasName` (exit 3 for an unknown alias). */
export function adminFor(ctx: RcContext, aliasName: string): AdminClient {
  return adminClientFor(parseRemote(ctx.config(), aliasName).alias);
}

/** `{…}` segments of admin paths are URL-encoded (docs/admin-api.md). */
export const seg = (s: string): string => encodeURIComponent(s);

function printUser(ctx: RcContext, u: AdminUser, json: boolean): void {
  if (json) { println(ctx.io, JSON.stringify(u)); return; }
  println(ctx.io, `AccessKey: ${u.accessKey}\nStatus:    ${u.status}\nPolicies:  ${(u.policies ?? []).join(', ') || '-'}\nGroups:    ${(u.groups ?? []).join(', ') || '-'}`);
}

const jsonOpt = (c: Command) => c.option('--json', 'print the server\'s JSON answer');

/** `rc admin user add|list|info|remove|enable|disable`. */
export function userCommand(ctx: RcContext): Command {
  const status = (name: 'enable' | 'disable') => jsonOpt(new Command(name)
    .description(`${name} a user`)
    .argument('<alias>').argument('<access-key>'))
    .action(async (a: string, key: string, o: { json?: boolean }) => {
      const u = await adminFor(ctx, a).call<AdminUser>({ method: 'POST', path: `users/${seg(key)}/status`, body: { status: name === 'enable' ? 'enabled' : 'disabled' } });
      if (o.json) printUser(ctx, u, true); else println(ctx.io, `User \`${key}\` is ${name}d.`);
    });
  return new Command('user')
    .description('manage users')
    .addCommand(new Command('add').description('add a user (409 UserExists if present)')
      .argument('<alias>').argument('<access-key>').argument('<secret-key>')
      .option('--policy <names>', 'comma-separated policies to attach')
      .action(async (a: string, key: string, secret: string, o: { policy?: string }) => {
        const policies = o.policy ? o.policy.split(',').map((p) => p.trim()).filter(Boolean) : undefined;
        await adminFor(ctx, a).call<AdminUser>({ method: 'PUT', path: `users/${seg(key)}`, body: { secretKey: secret, ...(policies ? { policies } : {}) } });
        println(ctx.io, `Added user \`${key}\` successfully.`);
      }))
    .addCommand(jsonOpt(new Command('list').alias('ls').description('list users').argument('<alias>'))
      .action(async (a: string, o: { json?: boolean }) => {
        const out = await adminFor(ctx, a).call<{ users: AdminUser[] }>({ method: 'GET', path: 'users' });
        for (const u of out.users ?? []) {
          if (o.json) println(ctx.io, JSON.stringify(u));
          else println(ctx.io, `${padEnd(u.status, 9)} ${padEnd(u.accessKey, 24)} ${(u.policies ?? []).join(',')}`);
        }
      }))
    .addCommand(jsonOpt(new Command('info').description('show a user (never its secret)').argument('<alias>').argument('<access-key>'))
      .action(async (a: string, key: string, o: { json?: boolean }) => {
        printUser(ctx, await adminFor(ctx, a).call<AdminUser>({ method: 'GET', path: `users/${seg(key)}` }), o.json === true);
      }))
    .addCommand(new Command('remove').alias('rm').description('remove a user').argument('<alias>').argument('<access-key>')
      .action(async (a: string, key: string) => {
        await adminFor(ctx, a).call({ method: 'DELETE', path: `users/${seg(key)}` });
        println(ctx.io, `Removed user \`${key}\` successfully.`);
      }))
    .addCommand(status('enable'))
    .addCommand(status('disable'));
}

function readPolicyFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new RcError(EXIT.failure, `cannot read policy file ${path}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`policy file ${path} is not JSON: ${(err as Error).message}`, 'write an IAM policy document: {"Version":"2012-10-17","Statement":[…]}');
  }
}

function attachDetach(ctx: RcContext, verb: 'attach' | 'detach'): Command {
  return new Command(verb)
    .description(`${verb} policies ${verb === 'attach' ? 'to' : 'from'} a user or a group`)
    .argument('<alias>').argument('<policy...>', 'policy names')
    .option('--user <access-key>', 'the user')
    .option('--group <name>', 'the group')
    .action(async (a: string, policies: string[], o: { user?: string; group?: string }) => {
      if ((o.user === undefined) === (o.group === undefined)) throw new UsageError('give exactly one of --user and --group');
      const path = o.user !== undefined ? `users/${seg(o.user)}/policies` : `groups/${seg(o.group ?? '')}/policies`;
      await adminFor(ctx, a).call({ method: 'POST', path, body: { [verb]: policies } });
      println(ctx.io, `Policy ${policies.map((p) => `\`${p}\``).join(', ')} ${verb === 'attach' ? 'attached to' : 'detached from'} ${o.user !== undefined ? `user \`${o.user}\`` : `group \`${o.group ?? ''}\``}.`);
    });
}

/** `rc admin policy create|list|info|remove|attach|detach`. */
export function policyCommand(ctx: RcContext): Command {
  return new Command('policy')
    .description('manage IAM policies (canned: readonly, readwrite, writeonly, consoleAdmin…)')
    .addCommand(new Command('create').description('create or replace a policy from an IAM policy JSON file')
      .argument('<alias>').argument('<name>').argument('<file>', 'policy document (JSON)')
      .action(async (a: string, name: string, file: string) => {
        await adminFor(ctx, a).call({ method: 'PUT', path: `policies/${seg(name)}`, body: readPolicyFile(file) });
        println(ctx.io, `Created policy \`${name}\` successfully.`);
      }))
    .addCommand(jsonOpt(new Command('list').alias('ls').description('list policies').argument('<alias>'))
      .action(async (a: string, o: { json?: boolean }) => {
        const out = await adminFor(ctx, a).call<{ policies: Array<{ name: string; canned: boolean }> }>({ method: 'GET', path: 'policies' });
        for (const p of out.policies ?? []) println(ctx.io, o.json ? JSON.stringify(p) : `${p.name}${p.canned ? ' (canned)' : ''}`);
      }))
    .addCommand(new Command('info').description('print a policy document').argument('<alias>').argument('<name>')
      .action(async (a: string, name: string) => {
        const out = await adminFor(ctx, a).call<{ name: string; canned: boolean; policy: unknown }>({ method: 'GET', path: `policies/${seg(name)}` });
        println(ctx.io, JSON.stringify(out.policy, null, 2));
      }))
    .addCommand(new Command('remove').alias('rm').description('remove a policy (409 PolicyInUse while attached)').argument('<alias>').argument('<name>')
      .action(async (a: string, name: string) => {
        await adminFor(ctx, a).call({ method: 'DELETE', path: `policies/${seg(name)}` });
        println(ctx.io, `Removed policy \`${name}\` successfully.`);
      }))
    .addCommand(attachDetach(ctx, 'attach'))
    .addCommand(attachDetach(ctx, 'detach'));
}

