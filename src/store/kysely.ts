/**
 * The one door to kysely at run time: every module takes kysely's values from here (types may
 * come from 'kysely' directly). The build replaces the compiled file with kysely bundled into
 * one module (scripts/bundle.mjs): loading its 279 separate files cost 120–160 ms at
 * every start of the CLI, the bundle about 15 ms.
 */
export * from 'kysely';
