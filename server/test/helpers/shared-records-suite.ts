// Loaded before every test file (scripts/run-tests.mjs): the GET/HEAD path's decoded records, shared between requests
// in service (storage/engine/record-memo.ts), are handed out frozen in tests, so that code changing one throws here
// instead of changing what the next GET sees.
import { freezeSharedRecords } from '../../src/storage/index.js';

freezeSharedRecords(true);
