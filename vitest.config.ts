import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The PostgreSQL half runs with `npm run test:pg` (vitest.pg.config.ts), not here yet.
    exclude: [...configDefaults.exclude, 'test/pg/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
