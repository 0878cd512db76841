/** `rc admin`: the admin API commands. */
import { Command } from 'commander';
import type { RcContext } from '../context.js';
import { groupCommand, svcacctCommand } from './admin-groups.js';
import { policyCommand, userCommand } from './admin-iam.js';
import { adminInfoCommand } from './admin-info.js';

/** `rc admin info|user|policy|group|svcacct`. */
export function adminCommand(ctx: RcContext): Command {
  return new Command('admin')
    .description('administer a deployment (needs admin permissions, e.g. the consoleAdmin policy)')
    .addCommand(adminInfoCommand(ctx))
    .addCommand(userCommand(ctx))
    .addCommand(policyCommand(ctx))
    .addCommand(groupCommand(ctx))
    .addCommand(svcacctCommand(ctx));
}
