#!/usr/bin/env node
import { runRc } from '../dist/src/cli/index.js';
process.exitCode = await runRc(process.argv);
