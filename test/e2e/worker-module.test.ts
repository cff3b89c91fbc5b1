/** Where the worker threads' compiled modules are found (needs dist/: npm test builds it first). */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { workerModule } from '../../src/lib/worker-module.js';
import { REPO } from '../helpers/cli.js';

const at = (...parts: string[]) => pathToFileURL(join(REPO, ...parts)).href;

describe('workerModule', () => {
  afterEach(() => {
    delete process.env.PREMIA_TEST_WORKER;
  });

  it('from a TypeScript source: the compiled worker in dist/, however deep its directory', () => {
    expect(workerModule(at('src', 'store', 'day-writer-url.ts'), 'store', 'day-writer.js', 'PREMIA_TEST_WORKER')?.href).toBe(at('dist', 'store', 'day-writer.js'));
    expect(workerModule(at('src', 'backend', 'local', 'account-helper.ts'), 'backend/local', 'account-helper-worker.js', 'PREMIA_TEST_WORKER')?.href).toBe(
      at('dist', 'backend', 'local', 'account-helper-worker.js'),
    );
  });

  it('from a compiled module (dist/ or the bundle): the worker beside it', () => {
    expect(workerModule(at('dist', 'server', 'jobs.js'), 'server', 'job-worker.js', 'PREMIA_TEST_WORKER')?.href).toBe(at('dist', 'server', 'job-worker.js'));
    expect(workerModule(at('dist', 'bundle', 'chunk-ANY.js'), 'store', 'day-writer.js', 'PREMIA_TEST_WORKER')?.href).toBe(at('dist', 'bundle', 'day-writer.js'));
  });

  it('every worker thread is in the build, compiled and bundled', () => {
    const workers = [
      ['backend/local', 'account-helper-worker.js'],
      ['backend/local', 'policy-import-worker.js'],
      ['server', 'job-worker.js'],
      ['store', 'day-writer.js'],
      ['store', 'report-reader.js'],
    ];
    for (const [dir, file] of workers) {
      expect(workerModule(at('src', ...dir!.split('/'), 'x.ts'), dir!, file!, 'PREMIA_TEST_WORKER')?.href).toBe(at('dist', ...dir!.split('/'), file!));
      expect(workerModule(at('dist', 'bundle', 'chunk-ANY.js'), dir!, file!, 'PREMIA_TEST_WORKER')?.href).toBe(at('dist', 'bundle', file!));
    }
  });

  it('null when the worker is not there, or when its variable is 0', () => {
    expect(workerModule(at('dist', 'store', 'x.js'), 'store', 'no-such-worker.js', 'PREMIA_TEST_WORKER')).toBeNull();
    process.env.PREMIA_TEST_WORKER = '0';
    expect(workerModule(at('dist', 'server', 'jobs.js'), 'server', 'job-worker.js', 'PREMIA_TEST_WORKER')).toBeNull();
  });
});
