#!/usr/bin/env node
// CommonJS, as svc.js (server/bin/package.json).
import('../dist/src/cli/index.js')
  .then(({ runRc }) => runRc(process.argv))
  .then((code) => { process.exitCode = code; });
