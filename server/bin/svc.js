#!/usr/bin/env node
import { runSvc } from '../dist/src/cli/svc.js';
process.exitCode = await runSvc(process.argv);
