#!/usr/bin/env node
import { runCommandLine } from './run-command-line.ts';

process.exitCode = await runCommandLine(process.argv.slice(2));
