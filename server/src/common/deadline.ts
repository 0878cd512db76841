/**
 * A promise bounded in time: `p`'s outcome, or `late()`'s error once `ms` have passed, whichever comes first. The
 * timer is cleared either way; `p` itself keeps running (a hung file system call cannot be cancelled), the caller
 * just stops waiting for it.
 */
export function withDeadline<T>(p: Promise<T>, ms: number, late: () => Error = () => new Error(`no answer within ${ms} ms`)): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}
