/** `rc alias set|list|remove`: the named servers of `alias/bucket/key` paths. */
import { ListBucketsCommand } from '@aws-sdk/client-s3';
import { Command } from 'commander';
import { ALIAS_NAME, type AliasConfig, getAlias, saveConfig } from '../config.js';
import type { RcContext } from '../context.js';
import { EXIT, UsageError } from '../errors.js';
import { println } from '../io.js';
import { s3ClientFor, toRcError } from '../s3.js';

/** Options of `rc alias set`. */
export interface AliasSetOptions {
  name: string;
  url: string;
  accessKey: string;
  secretKey: string;
  region: string;
}

function checkUrl(text: string): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new UsageError(`"${text}" is not a URL`, 'give the server address with its scheme, e.g. http://127.0.0.1:9000');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError(`"${text}" is not an http(s) URL`, 'e.g. https://s3.example.com');
  if (u.search || u.hash) throw new UsageError(`"${text}" must not carry a query or fragment`);
  return u.toString().replace(/\/+$/, '');
}

/**
 * Proves the keys by calling ListBuckets: success or AccessDenied (a known user without that permission)
 * both mean the server accepted the signature; anything else is refused with its exit code (4 unreachable,
 * 5 bad keys) and nothing is stored.
 */
export async function validateAlias(alias: AliasConfig): Promise<void> {
  const client = s3ClientFor(alias);
  try {
    await client.send(new ListBucketsCommand({}));
  } catch (err) {
    const e = toRcError(err, alias.url, alias.url);
    if (e.exitCode === EXIT.denied && e.serverCode === 'AccessDenied') return;
    throw e;
  } finally {
    client.destroy();
  }
}

/** Runs `rc alias set`. */
export async function runAliasSet(ctx: RcContext, o: AliasSetOptions): Promise<void> {
  if (!ALIAS_NAME.test(o.name)) throw new UsageError(`"${o.name}" is not a valid alias name`, 'use letters, digits, ".", "_" or "-" (no "/")');
  const alias: AliasConfig = { url: checkUrl(o.url), accessKey: o.accessKey, secretKey: o.secretKey, region: o.region };
  await validateAlias(alias);
  const config = ctx.config();
  config.aliases[o.name] = alias;
  saveConfig(ctx.io.env, config);
  println(ctx.io, `Added "${o.name}" (${alias.url}).`);
}

function aliasSet(ctx: RcContext): Command {
  return new Command('set')
    .description('add or replace an alias after checking its keys against the server')
    .argument('<alias>', 'name used as the first segment of remote paths')
    .argument('<url>', 'server URL, e.g. http://127.0.0.1:9000')
    .argument('<access-key>', 'access key')
    .argument('<secret-key>', 'secret key')
    .option('--region <region>', 'signing region of the server', 'us-east-1')
    .action((name: string, url: string, accessKey: string, secretKey: string, opts: { region: string }) =>
      runAliasSet(ctx, { name, url, accessKey, secretKey, region: opts.region }));
}

function aliasList(ctx: RcContext): Command {
  return new Command('list')
    .alias('ls')
    .description('list aliases (secret keys are never printed)')
    .argument('[alias]', 'show only this alias')
    .option('--json', 'one JSON object per alias: {alias, url, accessKey, region}')
    .action((only: string | undefined, opts: { json?: boolean }) => {
      const config = ctx.config();
      const names = only === undefined ? Object.keys(config.aliases).sort() : [only];
      for (const name of names) {
        const a = getAlias(config, name);
        if (opts.json) println(ctx.io, JSON.stringify({ alias: name, url: a.url, accessKey: a.accessKey, region: a.region }));
        else println(ctx.io, `${name}\n  URL:       ${a.url}\n  AccessKey: ${a.accessKey}\n  Region:    ${a.region}`);
      }
    });
}

function aliasRemove(ctx: RcContext): Command {
  return new Command('remove')
    .alias('rm')
    .description('forget an alias')
    .argument('<alias>', 'alias to remove')
    .action((name: string) => {
      const config = ctx.config();
      getAlias(config, name);
      delete config.aliases[name];
      saveConfig(ctx.io.env, config);
      println(ctx.io, `Removed "${name}".`);
    });
}

/** `rc alias`. */
export function aliasCommand(ctx: RcContext): Command {
  return new Command('alias')
    .description('manage server aliases (stored in ~/.config/rc/config.json, mode 600; RC_CONFIG_DIR overrides)')
    .addCommand(aliasSet(ctx))
    .addCommand(aliasList(ctx))
    .addCommand(aliasRemove(ctx));
}

