/**
 * How a debit premia asks the bank for can fail: the reasons an attempt records (attempts CSV,
 * collections' last_failure_reason) and which of them are worth trying again.
 */
export const FAILURE_REASONS = ['INSUFFICIENT_FUNDS', 'ACCOUNT_CLOSED', 'PAYMENT_STOPPED', 'ACCOUNT_FROZEN'] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** Only a lack of money is worth retrying; every other failure ends the period's attempts. */
export function isRetryable(reason: string | null): boolean {
  return reason === 'INSUFFICIENT_FUNDS';
}
