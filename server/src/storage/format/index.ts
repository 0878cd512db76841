/** Public names of the format layer: versioned on-disk records (format file, object metadata, system records). */
export { CorruptRecordError } from './format-errors.js';
export { DISTRIBUTION_ALGO, OFFLINE_DRIVE_UUID, decodeFormat, driveFormat, encodeFormat, findDrive } from './format-file.js';
export type { DriveFormat } from './format-file.js';
export {
  NULL_VERSION_ID, decodeObjectMeta, decodeObjectRecord, encodeObjectMeta, encodeObjectRecord, isDeleteMarker,
} from './object-meta.js';
export type { DeleteMarkerMeta, ErasureInfo, ObjectMeta, ObjectRecord, ObjectTagMeta, PartBitrot, PartMeta, VersionMeta } from './object-meta.js';
export {
  decodeBucketRecord, decodePartRecord, decodeUploadRecord, encodeBucketRecord, encodePartRecord, encodeUploadRecord,
} from './sys-records.js';
export type { BucketConfigEntry, BucketRecord, PartRecord, UploadRecord } from './sys-records.js';
export type { ObjectLockMeta } from './object-lock-meta.js';
export { recordWriteId } from './record-probe.js';
export { envelopeLayout } from './envelope.js';
