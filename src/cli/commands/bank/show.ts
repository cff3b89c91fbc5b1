import { verb, type CommandDeps } from '../../command.js';

export interface ShowOptions extends CommandDeps {
  /** A customer id. */
  customerId: string;
}

export async function showRun({ ui, backend, customerId }: ShowOptions): Promise<number> {
  const view = await (await backend()).showBankAccount(customerId);
  if (ui.json) {
    ui.printJson(view);
    return 0;
  }
  ui.keyValues([
    ['customer_id', view.customer_id],
    ['source', view.source],
    ['as_of', view.as_of],
    ['balance', ui.money(view.balance)],
    ['state', view.state],
    ['income', view.income.description],
    ['next_income', view.income.next_income_dates.join(', ') || '-'],
  ]);
  ui.line();
  ui.table(
    [
      { header: 'date', value: (t) => t.date },
      { header: 'amount', value: (t) => t.amount, money: true },
      { header: 'outcome', value: (t) => t.outcome },
      { header: 'balance', value: (t) => t.balance, money: true },
      { header: 'description', value: (t) => t.description },
    ],
    view.recent_transactions,
  );
  return 0;
}

export default verb<unknown, ShowOptions>((deps, _flags, [customerId]) => ({ ...deps, customerId: customerId! }), showRun);
