/**
 * The one door to kysely at run time: every module takes kysely's values from here (types may
 * come from 'kysely' directly). The build replaces the compiled file with kysely bundled into
 * one module (scripts/bundle.mjs): every start of the CLI that opens a store would otherwise
 * load its 279 separate files, many times what the one module costs.
 */
export * from 'kysely';
