#!/usr/bin/env node
/**
 * A customer of a generated book, as the bank would post the account without premia's debits:
 * each row with the balance after it (a debit larger than the balance is marked declined).
 *
 *   node bench/books/show.js DIR CUSTOMER_ID [--from YYYY-MM-DD] [--to YYYY-MM-DD]
 *
 * DIR is a directory written by generate.js (or score.js --keep). Premia's own debits are not
 * in the file: `premia collections explain` and `premia bank show` tell what premia did.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { from: { type: 'string', default: '0000-00-00' }, to: { type: 'string', default: '9999-99-99' } },
});
const [dir, id] = positionals;
if (!dir || !id) {
  process.stderr.write('usage: node bench/books/show.js DIR CUSTOMER_ID [--from DATE] [--to DATE]\n');
  process.exit(2);
}
const prefix = `${id},`;
const family = readFileSync(join(dir, 'families.csv'), 'utf8').split('\n').find((l) => l.startsWith(prefix));
const policies = readFileSync(join(dir, 'policies.csv'), 'utf8').split('\n').filter((l) => l.startsWith(prefix));
process.stdout.write(`${family ?? `${id}: not in families.csv`}\n${policies.join('\n')}\n`);
let balance = 0;
for (const line of readFileSync(join(dir, 'bank.csv'), 'utf8').split('\n')) {
  if (!line.startsWith(prefix)) continue;
  const [, date, amount, ...desc] = line.split(',');
  const c = Math.round(Number(amount) * 100);
  let note = '';
  if (c > 0 || (c < 0 && -c <= balance)) balance += c;
  else if (c < 0) note = '  (declined)';
  if (date >= values.from && date <= values.to) {
    process.stdout.write(`${date}  ${amount.padStart(10)}  ${desc.join(',').padEnd(30)} ${(balance / 100).toFixed(2).padStart(11)}${note}\n`);
  }
}
