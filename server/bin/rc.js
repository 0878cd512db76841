#!/usr/bin/env node
import { runRc } from '../dist/src/cli/rc.js';
process.exitCode = await runRc(process.argv);
