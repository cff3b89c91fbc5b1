import { defineConfig } from 'vitest/config';

/**
 * `npm run test:pg`: the PostgreSQL half of the suite (test/pg), against a throwaway cluster
 * that test/pg/global-setup.ts starts and removes. Not part of `npm test` (yet).
 */
export default defineConfig({
  test: {
    include: ['test/pg/**/*.test.ts'],
    globalSetup: ['test/pg/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
