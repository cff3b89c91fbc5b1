import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!();
});

describe('premia simulate --help', () => {
  it('lists the global options simulate uses (--seed, --db, --json) and each default once', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const r = await runCli(['simulate', '--help'], { cwd: dir });
    expect(r.code).toBe(0);
    const help = r.stdout;
    for (const option of ['--seed <n>', '--db <path>', '--json', '--period <YYYY-MM>', '--months <n>', '--policies <file>', '--bank <file>', '--strategy <name>', '--out <dir>']) {
      expect(help).toContain(option);
    }
    expect(help).toContain('PREMIA_DB is ignored');
    // simulate refuses a --db that holds policies, not only one with a run (docs/simulate.md)
    expect(help.replace(/\s+/g, ' ')).toContain('it must hold no policies and no collections run yet');
    // --out's default was shown twice: "(default ./premia-out) (default: "premia-out")"
    expect(help.match(/premia-out/g)).toHaveLength(1);
    expect(help.match(/\(default/g)?.length).toBe(help.match(/\(default:/g)?.length);
  });
});
