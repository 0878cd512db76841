// Entry used by the black-box CLI tests: the same as bin/deploy-kit.js, but from the TypeScript sources (run with tsx).
import { main } from '../../src/main.js';

process.exitCode = await main(process.argv);
