// Loaded before every test file when the suite runs with SVC_KEY_INDEX=1 (scripts/run-tests.mjs): drives the tests
// format in-process get the experimental key-index layout too, as spawned servers do through their configuration.
// This is how the layout is checked against the whole suite before it can be the default (issue 9, point 2).
import { setKeyIndexForNewDrives } from '../../src/storage/index.js';

setKeyIndexForNewDrives(true);
