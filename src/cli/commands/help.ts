/**
 * What every command's --help ends with: one or two real examples and a pointer to the global
 * options (`premia --help`); and `premia help <command…>`, which shows the help of any command,
 * nested ones included (`premia help clock advance`). The examples are a table here, one place
 * to keep them true: test/cli/help.test.ts parses each of them as the command line it is.
 */
import type { Command } from 'commander';
import { usageError } from '../../domain/errors.js';

/** A command's examples, by its words (`clock advance`). Each runs as written from a shell. */
export const EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  policies: ['premia policies import policies.csv', 'premia policies list --status active'],
  'policies create': ['premia policies create --policy-number POL-1 --customer-id C1 --external-ref ACME-1 --product-code LIFE --amount 199.50'],
  'policies import': ['premia policies import policies.csv', 'premia --json policies import - < policies.csv'],
  'policies update': ['premia policies update POL-2026001 --amount 910.00', 'premia policies update POL-2026001 --status cancelled'],
  'policies get': ['premia policies get POL-2026001'],
  'policies list': ['premia policies list --status active --limit 20', 'premia policies list --format csv --fields policy_number,collection_amount > policies.csv'],
  collections: ['premia collections execute --period 2026-11', 'premia collections list --period 2026-11 --status UNPAID'],
  'collections execute': ['premia collections execute --period 2026-11', 'premia collections execute --period 2026-11 --policy POL-2026001 --strategy naive'],
  'collections get': ['premia collections get 0b4c2a1e-6f1d-4c7e-9a3b-2d5e8f7a1c90'],
  'collections list': ['premia collections list --period 2026-11 --status PAID_PARTIAL', 'premia collections list --period 2026-11 --format json --fields policy_number,collection_status'],
  'collections attempts': ['premia collections attempts --period 2026-11 > attempts-2026-11.csv', 'premia collections attempts --period 2026-11 --format table --fields policy_number,date,amount,outcome'],
  'collections explain': ['premia collections explain 0b4c2a1e-6f1d-4c7e-9a3b-2d5e8f7a1c90'],
  'collections execution': ['premia collections execution 7d2f0c3b-1a4e-4b6d-8c9f-0e1a2b3c4d5e'],
  clock: ['premia clock', 'premia clock advance --to-month-end'],
  'clock show': ['premia clock show'],
  'clock advance': ['premia clock advance --days 1', 'premia clock advance --to 2026-11-30 --dry-run'],
  'clock set': ['premia clock set 2026-10-31'],
  bank: ['premia bank import bank-transactions.csv', 'premia bank show C100001'],
  calendar: ['premia calendar --year 2027', 'premia calendar import company-days.csv'],
  'calendar import': ['premia calendar import company-days.csv', 'premia calendar import holidays-2027.csv --replace'],
  'bank import': ['premia bank import bank-transactions.csv'],
  'bank show': ['premia bank show C100001'],
  'bank seed': ['premia bank seed 7'],
  keys: ['premia keys create --client acme', 'premia keys list'],
  'keys create': ['premia keys create --client acme', 'premia keys create --operator'],
  'keys list': ['premia keys list', 'premia keys list --format csv'],
  'keys revoke': ['premia keys revoke 5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'],
  settings: ['premia settings', 'premia settings set lapse.unpaid_periods 3'],
  'settings set': ['premia settings set lapse.unpaid_periods 3'],
  db: ['premia db copy --from ./premia.db --to postgres://premia@db.example.com/premia'],
  'db copy': ['premia db copy --from ./premia.db --to postgres://premia@db.example.com/premia', 'premia --yes db copy --from postgres://premia@db.example.com/premia --to ./back.db'],
  engine: ['premia --db postgres://premia@db.example.com/premia engine work'],
  'engine work': ['premia --db postgres://premia@db.example.com/premia engine work', 'premia --db postgres://premia@db.example.com/premia engine work --until 2026-11-30'],
  serve: ['premia serve --port 8080', 'premia --db /srv/premia.db serve --host 0.0.0.0 --no-simulation'],
  reports: ['premia reports collections --period 2026-11 > collections-2026-11.csv', 'premia reports summary --period 2026-11'],
  'reports collections': ['premia reports collections --period 2026-11 > collections-2026-11.csv', 'premia reports collections --period 2026-11 --require-closed --output /srv/reports/'],
  'reports summary': ['premia reports summary --period 2026-11', 'premia reports summary --period 2026-11 --html month-2026-11.html'],
  settlements: ['premia settlements create --period 2026-11', 'premia settlements list --status pending'],
  'settlements create': ['premia settlements create --period 2026-11'],
  'settlements get': ['premia settlements get SETTLE-2026-11-001'],
  'settlements export': ['premia settlements export SETTLE-2026-11-001 --output statements/', 'premia settlements export SETTLE-2026-11-001 --lines > lines.csv'],
  'settlements list': ['premia settlements list --status pending', 'premia settlements list --format csv --fields settlement_number,net_amount'],
  'settlements mark-paid': ['premia settlements mark-paid SETTLE-2026-11-001'],
  'settlements dispute': ['premia settlements dispute SETTLE-2026-11-001 --reason "fee charged twice"'],
  simulate: ['premia simulate', 'premia simulate --months 3 --seed 7 --out /tmp/sim'],
  login: ['premia login --base-url http://localhost:8080/v1', 'premia login --profile staging --base-url https://premia.example.com/v1'],
  logout: ['premia logout', 'premia logout --profile staging'],
  whoami: ['premia whoami', 'premia --profile staging whoami'],
  profiles: ['premia profiles', 'premia profiles --format json'],
  fixtures: ['premia fixtures copy ./premia-fixtures'],
  'fixtures copy': ['premia fixtures copy ./premia-fixtures', 'premia fixtures copy .'],
  completion: ['premia completion bash > ~/.local/share/bash-completion/completions/premia', 'premia completion zsh > "${fpath[1]}/_premia"'],
  help: ['premia help clock advance', 'premia help policies'],
};

export const GLOBAL_OPTIONS_LINE = 'Global options (--db, --json, --quiet, --yes, remote mode and more): premia --help';

/** The command's words without the program's: `clock advance`. */
export function commandWords(command: Command): string {
  const words: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) words.unshift(c.name());
  return words.join(' ');
}

/** Every command below `root`, depth first, in the order they were added. */
export function allCommands(root: Command): Command[] {
  const out: Command[] = [];
  const walk = (c: Command) => {
    for (const sub of c.commands) {
      out.push(sub);
      walk(sub);
    }
  };
  walk(root);
  return out;
}

/**
 * Give every command its examples and the global-options line, and replace commander's `help`
 * commands by `premia help [command...]`, which reaches nested commands too.
 */
export function applyHelpConventions(program: Command): void {
  program.helpCommand(false);
  program
    .command('help')
    .description('show the help of a command: premia help clock advance')
    .argument('[command...]', 'the command (its words)')
    .action((words: string[]) => {
      let target: Command = program;
      for (const word of words) {
        const next = target.commands.find((c) => c.name() === word || c.aliases().includes(word));
        if (!next) {
          const known = target.commands.map((c) => c.name()).filter((n) => n !== 'help');
          const where = target === program ? 'premia' : `premia ${commandWords(target)}`;
          throw usageError(`'${word}' is not a command of ${where}; its commands are: ${known.join(', ')}.`);
        }
        target = next;
      }
      target.outputHelp();
    });
  for (const command of allCommands(program)) {
    command.helpCommand(false);
    const examples = EXAMPLES[commandWords(command)] ?? [];
    const lines = examples.length === 0 ? [] : ['', examples.length === 1 ? 'Example:' : 'Examples:', ...examples.map((e) => `  ${e}`)];
    command.addHelpText('after', [...lines, '', GLOBAL_OPTIONS_LINE].join('\n'));
  }
}
