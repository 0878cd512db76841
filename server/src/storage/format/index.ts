/** Public names of the format layer: versioned on-disk records (format file, object metadata, system records). */
export { CorruptRecordError } from './format-errors.js';
export { DISTRIBUTION_ALGO, OFFLINE_DRIVE_UUID, decodeFormat, encodeFormat, findDrive } from './format-file.js';
export type { DriveFormat } from './format-file.js';
export { decodeObjectMeta, encodeObjectMeta } from './object-meta.js';
export type { ErasureInfo, ObjectMeta, ObjectTagMeta, PartMeta } from './object-meta.js';
export {
  decodeBucketRecord, decodePartRecord, decodeUploadRecord, encodeBucketRecord, encodePartRecord, encodeUploadRecord,
} from './sys-records.js';
export type { BucketConfigEntry, BucketRecord, PartRecord, UploadRecord } from './sys-records.js';
