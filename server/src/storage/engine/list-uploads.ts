import type { ErasureSet } from './erasure-set.js';
import { listSetUploads, toUploadInfo } from './multipart.js';
import type { ListUploadsOptions, ListUploadsResult } from './object-layer.js';
import { compareUtf8 } from './object-name.js';

/**
 * One ListMultipartUploads page over `sets` (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListMultipartUploads.html):
 * uploads by key, then initiation time, after (key-marker, upload-id-marker), rolled up at the delimiter.
 */
export async function listUploads(sets: readonly ErasureSet[], bucket: string, opts: ListUploadsOptions): Promise<ListUploadsResult> {
  const all = (await Promise.all(sets.map((s) => listSetUploads(s, bucket)))).flat()
    .filter((u) => u.key.startsWith(opts.prefix))
    .sort((a, b) => compareUtf8(a.key, b.key) || a.initiated - b.initiated || compareUtf8(a.uploadId, b.uploadId));
  const after = all.filter((u) => {
    if (opts.keyMarker === '') return true;
    const c = compareUtf8(u.key, opts.keyMarker);
    if (c !== 0) return c > 0;
    if (opts.uploadIdMarker === '') return false;
    const m = all.findIndex((x) => x.key === opts.keyMarker && x.uploadId === opts.uploadIdMarker);
    return m >= 0 && all.indexOf(u) > m;
  });
  const out: ListUploadsResult = { uploads: [], commonPrefixes: [], isTruncated: false };
  let count = 0;
  for (const u of after) {
    let cp: string | undefined;
    if (opts.delimiter !== '') {
      const at = u.key.indexOf(opts.delimiter, opts.prefix.length);
      if (at >= 0) cp = u.key.slice(0, at + opts.delimiter.length);
    }
    if (cp !== undefined && out.commonPrefixes[out.commonPrefixes.length - 1] === cp) continue;
    if (count === opts.maxUploads) {
      out.isTruncated = true;
      break;
    }
    count++;
    if (cp !== undefined) {
      out.commonPrefixes.push(cp);
      out.nextKeyMarker = cp;
      delete out.nextUploadIdMarker;
    } else {
      out.uploads.push(toUploadInfo(u));
      out.nextKeyMarker = u.key;
      out.nextUploadIdMarker = u.uploadId;
    }
  }
  if (!out.isTruncated) {
    delete out.nextKeyMarker;
    delete out.nextUploadIdMarker;
  }
  return out;
}
