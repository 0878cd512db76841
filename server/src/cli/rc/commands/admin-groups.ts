/** `rc admin group …` and `rc admin svcacct …` (docs/admin-api.md "IAM calls"). */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { RcContext } from '../context.js';
import { EXIT, RcError } from '../errors.js';
import { padEnd } from '../format.js';
import { println } from '../io.js';
import { adminFor, seg } from './admin-iam.js';

/** A group as the admin API answers it. */
export interface AdminGroup {
  name: string;
  members: string[];
  policies: string[];
  status: string;
}

/** A service account as the admin API answers it (the secret only right after `add`). */
export interface AdminServiceAccount {
  accessKey: string;
  secretKey?: string;
  parent: string;
  status: string;
  expiration: string | null;
}

/** `rc admin group add|remove|list|info`. */
export function groupCommand(ctx: RcContext): Command {
  return new Command('group')
    .description('manage groups')
    .addCommand(new Command('add').description('create a group or add members to it')
      .argument('<alias>').argument('<group>').argument('[members...]', 'access keys of users')
      .action(async (a: string, group: string, members: string[]) => {
        await adminFor(ctx, a).call({ method: 'PUT', path: `groups/${seg(group)}`, body: { members } });
        println(ctx.io, `Added members ${members.map((m) => `\`${m}\``).join(', ') || '(none)'} to group \`${group}\` successfully.`);
      }))
    .addCommand(new Command('remove').alias('rm').description('remove members, or the group itself when no member is given (it must be empty)')
      .argument('<alias>').argument('<group>').argument('[members...]')
      .action(async (a: string, group: string, members: string[]) => {
        const admin = adminFor(ctx, a);
        if (members.length > 0) {
          await admin.call({ method: 'POST', path: `groups/${seg(group)}/members`, body: { remove: members } });
          println(ctx.io, `Removed members ${members.map((m) => `\`${m}\``).join(', ')} from group \`${group}\` successfully.`);
        } else {
          await admin.call({ method: 'DELETE', path: `groups/${seg(group)}` });
          println(ctx.io, `Removed group \`${group}\` successfully.`);
        }
      }))
    .addCommand(new Command('list').alias('ls').description('list groups').argument('<alias>').option('--json', 'one JSON object per group')
      .action(async (a: string, o: { json?: boolean }) => {
        const out = await adminFor(ctx, a).call<{ groups: AdminGroup[] }>({ method: 'GET', path: 'groups' });
        for (const g of out.groups ?? []) println(ctx.io, o.json ? JSON.stringify(g) : `${padEnd(g.name, 24)} ${(g.members ?? []).length} members  ${(g.policies ?? []).join(',')}`);
      }))
    .addCommand(new Command('info').description('show a group').argument('<alias>').argument('<group>').option('--json', 'print the JSON answer')
      .action(async (a: string, group: string, o: { json?: boolean }) => {
        const g = await adminFor(ctx, a).call<AdminGroup>({ method: 'GET', path: `groups/${seg(group)}` });
        println(ctx.io, o.json ? JSON.stringify(g) : `Group:    ${g.name}\nStatus:   ${g.status}\nPolicies: ${(g.policies ?? []).join(', ') || '-'}\nMembers:  ${(g.members ?? []).join(', ') || '-'}`);
      }));
}

/** `rc admin svcacct add|list|remove`. */
export function svcacctCommand(ctx: RcContext): Command {
  return new Command('svcacct')
    .description('manage service accounts (keys that act for a parent user)')
    .addCommand(new Command('add').description('create a service account; its secret key is shown once')
      .argument('<alias>').argument('<parent>', 'access key of the parent user')
      .option('--access-key <key>', 'choose the access key').option('--secret-key <key>', 'choose the secret key')
      .option('--policy <file>', 'session policy (JSON file) restricting the parent\'s rights')
      .option('--json', 'print the JSON answer')
      .action(async (a: string, parent: string, o: { accessKey?: string; secretKey?: string; policy?: string; json?: boolean }) => {
        let policy: unknown;
        if (o.policy !== undefined) {
          try { policy = JSON.parse(readFileSync(o.policy, 'utf8')); } catch (err) { throw new RcError(EXIT.usage, `cannot read policy file ${o.policy}: ${(err as Error).message}`); }
        }
        const sa = await adminFor(ctx, a).call<AdminServiceAccount>({ method: 'PUT', path: 'service-accounts', body: {
          parent, ...(o.accessKey ? { accessKey: o.accessKey } : {}), ...(o.secretKey ? { secretKey: o.secretKey } : {}), ...(policy !== undefined ? { policy } : {}),
        } });
        println(ctx.io, o.json ? JSON.stringify(sa) : `Access Key: ${sa.accessKey}\nSecret Key: ${sa.secretKey ?? '(hidden)'}`);
      }))
    .addCommand(new Command('list').alias('ls').description('list service accounts').argument('<alias>').argument('[parent]').option('--json', 'one JSON object per account')
      .action(async (a: string, parent: string | undefined, o: { json?: boolean }) => {
        const out = await adminFor(ctx, a).call<{ serviceAccounts: AdminServiceAccount[] }>({ method: 'GET', path: 'service-accounts', ...(parent ? { query: { parent } } : {}) });
        for (const s of out.serviceAccounts ?? []) println(ctx.io, o.json ? JSON.stringify(s) : `${padEnd(s.accessKey, 24)} ${padEnd(s.status, 9)} parent ${s.parent}${s.expiration ? ` expires ${s.expiration}` : ''}`);
      }))
    .addCommand(new Command('remove').alias('rm').description('remove a service account').argument('<alias>').argument('<access-key>')
      .action(async (a: string, key: string) => {
        await adminFor(ctx, a).call({ method: 'DELETE', path: `service-accounts/${seg(key)}` });
        println(ctx.io, `Removed service account \`${key}\` successfully.`);
      }));
}
