import {
  money
} from "./chunk-RYOHSQ24.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import "./chunk-RB5YZ7WD.js";
import "./chunk-7BKCKV6J.js";

// dist/cli/commands/bank/show.js
async function showRun({ ui, backend, customerId }) {
  const view = await (await backend()).showBankAccount(customerId);
  if (ui.json) {
    ui.printJson(view);
    return 0;
  }
  ui.keyValues([
    ["customer_id", view.customer_id],
    ["source", view.source],
    ["as_of", view.as_of],
    ["balance", money(view.balance)],
    ["state", view.state],
    ["income", view.income.description],
    ["next_income", view.income.next_income_dates.join(", ") || "-"]
  ]);
  ui.line();
  ui.table([
    { header: "date", value: (t) => t.date },
    { header: "amount", value: (t) => t.amount, money: true },
    { header: "outcome", value: (t) => t.outcome },
    { header: "balance", value: (t) => t.balance, money: true },
    { header: "description", value: (t) => t.description }
  ], view.recent_transactions);
  return 0;
}
var show_default = verb((deps, _flags, [customerId]) => ({ ...deps, customerId }), showRun);
export {
  show_default as default,
  showRun
};
