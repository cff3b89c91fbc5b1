#!/usr/bin/env node
// The premia launcher: loads the compiled CLI and runs it on this process's streams.
import { main } from '../dist/cli/bin.js';

main();
