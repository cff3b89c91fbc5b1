/** The fixtures premia ships (package.json `files`): the example book, bank history and a file with mistakes. */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** fixtures/ of the installed package (this module is dist/cli/fixtures.js). */
export const FIXTURES_DIR = fileURLToPath(new URL('../../fixtures/', import.meta.url));

/** The files `premia fixtures copy` copies, in the order "a month by hand" uses them. */
export const FIXTURE_FILES = ['policies.csv', 'bank-transactions.csv', 'policies-invalid.csv'] as const;

export const fixturePath = (name: (typeof FIXTURE_FILES)[number]): string => join(FIXTURES_DIR, name);
