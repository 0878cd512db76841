// Loaded before every test file when SVC_KEY_INDEX is set (scripts/run-tests.mjs): drives the tests format in-process
// get the layout it names, as spawned servers do through their configuration. `npm test`'s second pass sets it to 0,
// so that drives with a metadata file per key (what drives formatted before the key index became the default keep)
// are held to the same suite as the key index.
import { parseBool } from '../../src/config/load.js';
import { setKeyIndexForNewDrives } from '../../src/storage/index.js';

setKeyIndexForNewDrives(parseBool(process.env.SVC_KEY_INDEX, 'SVC_KEY_INDEX', true));
