import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Generous: a test's pass never depends on how busy the machine is (a shared 2-core machine
    // under load runs a month of the fixture book 5-10 times slower than when quiet).
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // One worker process per core (the default on this 2-core machine, stated so that a larger
    // machine does not start more workers than the tests' own child processes leave room for).
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
  },
});
