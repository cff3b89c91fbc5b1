/**
 * A new account (nothing ever posted to it, its statement begins in the period) against a dormant
 * one (money paid in long ago, nothing since): smart asks the new one for the premium on the
 * month's last business day, when most salaries are paid, and leaves the dormant one alone.
 */
import { describe, expect, it } from 'vitest';
import { localBackend, readDownload, textUpload } from '../helpers/local.js';

const POLICIES = `customer_id,external_customer_ref,policy_number,product_code,collection_amount
N1,E1,P-NEW,LIFE,868.70
N2,E2,P-UNFUNDED,LIFE,250.00
D1,E3,P-DORMANT,LIFE,300.00
`;
// N1's statement begins with its salary on Monday 30 November (the last business day); N2's in
// December; D1's account was opened in April with a deposit withdrawn the same day.
const BANK = `customer_id,date,amount,description
N1,2026-11-30,15688.05,SALARY
N1,2026-11-30,-1700.66,DEBIT ORDER
N2,2026-12-15,5000.00,SALARY
D1,2026-04-02,100.00,CASH DEPOSIT ACCOUNT OPENING
D1,2026-04-02,-100.00,ATM WITHDRAWAL
`;

describe('a new account', () => {
  it("is asked for the premium on the month's last business day; a dormant account is not", async () => {
    const b = await localBackend();
    try {
      await b.setClock('2026-10-31');
      expect((await b.importPolicies(textUpload('p.csv', POLICIES))).imported).toBe(3);
      expect((await b.importBankTransactions(textUpload('b.csv', BANK))).failed).toBe(0);
      await b.executeCollections({ period_month: '2026-11' });
      await b.advanceClock({ to: '2026-11-30' });
      const csv = await readDownload(await b.exportAttempts('2026-11', 'csv'));
      // Without the collection ids (UUIDs): date, amount, outcome, reason of each attempt.
      expect(csv.trimEnd().split('\n').map((l) => l.split(',').slice(1).join(','))).toEqual([
        'policy_number,customer_id,date,amount,outcome,failure_reason',
        'P-NEW,N1,2026-11-30,868.70,SUCCESS,',
        'P-UNFUNDED,N2,2026-11-30,250.00,FAILED,INSUFFICIENT_FUNDS',
      ]);
      const fresh = (await b.listCollections({ period_month: '2026-11', policy: 'P-NEW' })).data[0]!;
      expect((await b.explainCollection(fresh.id)).attempts[0]!.why).toBe(
        'smart: a new account, nothing posted to it yet; the last business day of the month, when most salaries are paid (they post before the debit), for the 868.70 due; expected balance 0.00',
      );
      const dormant = (await b.listCollections({ period_month: '2026-11', policy: 'P-DORMANT' })).data[0]!;
      expect([dormant.collection_status, dormant.number_of_attempts]).toEqual(['UNPAID', 0]);
    } finally {
      await b.close();
    }
  });
});
