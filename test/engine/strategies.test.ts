/**
 * The strategy registry: every strategy is reachable by its name, owns its reason codes, and the
 * engine documentation (docs/engine.md) lists exactly the registered strategies with their summaries.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/domain/period.js';
import { STRATEGY_NAMES as DOMAIN_NAMES } from '../../src/domain/strategy-names.js';
import { blankWhy, isStrategy, renderWhy, STRATEGIES, STRATEGY_LIST, STRATEGY_NAMES, strategyCode, strategyOf, WhyCode } from '../../src/engine/strategies.js';
import { FIXTURES, REPO, runCli, tempDir } from '../helpers/cli.js';
import { fileUpload, localBackend, readDownload } from '../helpers/local.js';

describe('the strategy registry', () => {
  it('maps each name to its module, in the order the CLI offers them', () => {
    expect(Object.keys(STRATEGIES)).toEqual(['smart', 'naive', 'oracle']);
    expect(STRATEGY_NAMES).toEqual(DOMAIN_NAMES);
    for (const name of STRATEGY_NAMES) expect(STRATEGIES[name].name).toBe(name);
    expect(STRATEGY_LIST.map((s) => s.name)).toEqual(['smart', 'naive', 'oracle']);
    expect(strategyCode('naive')).toBe(1);
    expect(strategyOf('oracle')).toBe(STRATEGIES.oracle);
    // An execution's stored name that is not a strategy (none is written) runs as the default.
    expect(strategyOf('bogus')).toBe(STRATEGIES.smart);
    expect(isStrategy('smart')).toBe(true);
    expect(isStrategy('toString')).toBe(false);
    expect(isStrategy('Smart')).toBe(false);
  });

  it('each reason code belongs to exactly one strategy, which renders it', () => {
    const owners = new Map<number, string>();
    for (const s of STRATEGY_LIST) for (const code of s.whyCodes) {
      expect(owners.has(code)).toBe(false);
      owners.set(code, s.name);
    }
    expect([...owners.keys()].sort((a, b) => a - b)).toEqual(Object.values(WhyCode).sort((a, b) => a - b));
    for (const [code, name] of owners) expect(renderWhy(blankWhy(code as WhyCode)).startsWith(`${name}: `)).toBe(true);
  });

  it('renders the reasons in the words the explanations have always used', () => {
    const retry = { ...blankWhy(WhyCode.NAIVE_RETRY), triggerDays: 7, lastAttemptDay: 20758 };
    expect(renderWhy(retry)).toBe('naive: retry 7 days after the failed attempt of 2026-11-01');
    const partial = { ...blankWhy(WhyCode.SMART_PARTIAL), trigger: 1 as const, triggerDays: 2, triggerDay: 20760, triggerAmount: 120000, estimate: 95050, part: 2, maxSplit: 4 };
    expect(renderWhy(partial)).toBe(
      'smart: partial debit 2 of at most 4, 2 days after income of 1200.00 received 2026-11-03, sized to what the deposit can bear; expected balance 950.50',
    );
    const last = { ...blankWhy(WhyCode.SMART_LAST_CHANCE), trigger: 2 as const, triggerDays: 1, triggerDay: 20760, triggerAmount: 50000, estimate: 20000 };
    expect(renderWhy(last)).toBe(
      'smart: no further income expected before month end, taking what the account can bear, 1 day after income of about 500.00 expected 2026-11-03; expected balance 200.00',
    );
    // Plural agreement (issue 15): one day, zero days.
    expect(renderWhy({ ...retry, triggerDays: 1 })).toBe('naive: retry 1 day after the failed attempt of 2026-11-01');
    expect(renderWhy({ ...partial, triggerDays: 0 })).toContain(', 0 days after income of 1200.00 received 2026-11-03,');
    expect(renderWhy(blankWhy(WhyCode.ORACLE))).toBe('oracle: takes what the balance allows on the day (reads the future; a benchmark bound)');
  });

  it('docs/engine.md lists exactly the registered strategies, with their summaries; the README offers them', () => {
    const engineDoc = readFileSync(join(REPO, 'docs', 'engine.md'), 'utf8');
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    // The bullets after the paragraph that starts '**Strategies**'.
    const section = engineDoc.slice(engineDoc.indexOf('**Strategies**'));
    const bullets = section.slice(section.indexOf('\n- ') + 1, section.indexOf('\n\n')).split('\n').filter((l) => l.startsWith('- '));
    expect(bullets).toEqual(STRATEGY_LIST.map((s) => `- \`${s.name}\`${s.name === 'smart' ? ' (default)' : ''}: ${s.summary}`));
    expect(readme).toContain(`[--strategy ${STRATEGY_NAMES.join('\\|')}]`);
  });
});

describe('--strategy', () => {
  it('offers the registered strategies and refuses others (exit 2)', async () => {
    const tmp = tempDir();
    try {
      for (const command of [['collections', 'execute', '--period', '2026-11'], ['simulate']]) {
        const r = await runCli(['--db', join(tmp.dir, 's.db'), ...command, '--strategy', 'greedy'], { cwd: tmp.dir });
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(`Allowed choices are ${STRATEGY_NAMES.join(', ')}.`);
      }
    } finally {
      tmp.cleanup();
    }
  });
});

describe('naive: the first day it can', () => {
  it.each([
    // Sunday 1 November is not a business day under the default calendar (za), nor under none.
    ['za', '2026-10-30', '2026-11-02'],
    ['none', '2026-10-30', '2026-11-02'],
    ['za', '2026-10-31', '2026-11-02'],
    // Queued on Monday 14 December: the debits of Tuesday the 15th go out that evening, whatever the calendar.
    ['za', '2026-12-14', '2026-12-15'],
    ['none', '2026-12-14', '2026-12-15'],
    // Wednesday 16 December is the Day of Reconciliation: queued on the 15th, za moves the first
    // debits to the 17th.
    ['za', '2026-12-15', '2026-12-17'],
    ['none', '2026-12-15', '2026-12-16'],
  ])('calendar %s, queued with the clock at %s: its first debits are on %s (submitted the evening before, business days only)', async (calendar, clock, first) => {
    const b = await localBackend();
    try {
      await b.admin.settings.set('calendar', calendar);
      await b.setClock(clock);
      await b.importPolicies(fileUpload(join(FIXTURES, 'policies.csv')));
      const period = clock.slice(0, 7) === '2026-12' ? '2026-12' : '2026-11';
      await b.executeCollections({ period_month: period, strategy: 'naive' });
      await b.advanceClock({ to: addDays(first, 1) });
      const dates = (await readDownload(await b.exportAttempts(period, 'csv')))
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((l) => l.split(',')[3]);
      expect(new Set(dates)).toEqual(new Set([first]));
      expect(dates.length).toBe(520);
    } finally {
      await b.close();
    }
  });
});
