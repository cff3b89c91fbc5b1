#!/usr/bin/env node
// The premia launcher: loads the compiled entry (src/app/premia.ts) and runs it on this process's streams.
import { main } from '../dist/app/premia.js';

main();
