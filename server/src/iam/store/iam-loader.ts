/**
 * Reading IAM records from the persistence into a snapshot: everything (startup, periodic safety net, a peer's
 * full reload) or one record (a peer's targeted reload). A record that cannot be decoded is skipped and
 * reported, so one damaged object never takes IAM down; a storage failure fails the whole load.
 */
import { parseIdentityPolicy } from '../policy/parse-policy.js';
import { decodeGroup, decodePolicy, decodeServiceAccount, decodeUser, keyOf, nameOf, prefixOf } from './iam-codec.js';
import type { IamChange, IamRecordKind } from './iam-codec.js';
import type { IamPersistence } from './iam-persistence.js';
import { emptySnapshot } from './iam-snapshot.js';
import type { IamSnapshot } from './iam-snapshot.js';

/** Where skipped records are reported. */
export type ReportSkipped = (key: string, err: Error) => void;

/** Puts (or, with undefined data, removes) one record of `change` into `s`; throws on an undecodable record. */
export function applyRecord(s: IamSnapshot, change: IamChange, data: Buffer | undefined): void {
  const what = keyOf(change);
  switch (change.kind) {
    case 'user': {
      if (data === undefined) s.users.delete(change.name);
      else s.users.set(change.name, decodeUser(data, what));
      return;
    }
    case 'policy': {
      if (data === undefined) {
        s.policies.delete(change.name);
        return;
      }
      const record = decodePolicy(data, what);
      s.policies.set(change.name, { record, parsed: parseIdentityPolicy(record.policy) });
      return;
    }
    case 'service-account': {
      if (data === undefined) {
        s.serviceAccounts.delete(change.name);
        return;
      }
      const record = decodeServiceAccount(data, what);
      s.serviceAccounts.set(change.name, record.policy === undefined ? { record } : { record, inline: parseIdentityPolicy(record.policy) });
      return;
    }
    case 'group': {
      if (data === undefined) s.groups.delete(change.name);
      else s.groups.set(change.name, decodeGroup(data, what));
      return;
    }
    default: change.kind satisfies never;
  }
}

const KINDS: readonly IamRecordKind[] = ['policy', 'user', 'service-account', 'group'];

/** Reads every record; rejects when the storage cannot be read at quorum. */
export async function loadSnapshot(p: IamPersistence, skipped: ReportSkipped): Promise<IamSnapshot> {
  await p.checkReadable();
  const s = emptySnapshot();
  for (const kind of KINDS) {
    const keys = await p.list(prefixOf(kind));
    // Records are small; a bounded fan-out keeps a large user base from opening thousands of reads at once.
    for (let i = 0; i < keys.length; i += 16) {
      const batch = keys.slice(i, i + 16);
      const datas = await Promise.all(batch.map((k) => p.get(k)));
      batch.forEach((key, j) => {
        const name = nameOf(kind, key);
        const data = datas[j];
        if (name === undefined || data === undefined) return;
        try {
          applyRecord(s, { kind, name }, data);
        } catch (err) {
          skipped(key, err as Error);
        }
      });
    }
  }
  return s;
}
