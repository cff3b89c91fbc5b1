/**
 * premia's version, from package.json: the CLI's --version, the user agent of remote mode, the
 * server's marker header. Read by a path relative to this module, two levels below the package
 * in src/, dist/ and the build's bundle alike (scripts/bundle.mjs).
 */
import { createRequire } from 'node:module';

export const VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
