/**
 * How a debit premia asks the bank for can fail: the reasons an attempt records (attempts CSV,
 * collections' last_failure_reason) and which of them are worth trying again.
 */
export const FAILURE_REASONS = ['INSUFFICIENT_FUNDS', 'ACCOUNT_CLOSED', 'PAYMENT_STOPPED', 'ACCOUNT_FROZEN'] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];
/** The outcomes by their code in the engine's day rows and image: 0 none (a success), then FAILURE_REASONS. */
export const FAILURE_BY_CODE: ReadonlyArray<FailureReason | null> = [null, ...FAILURE_REASONS];
/** A failure reason's code (FAILURE_BY_CODE): 0 for none. */
export const failureCode = (reason: string | null): number => Math.max(0, FAILURE_BY_CODE.indexOf(reason as FailureReason | null));

/** Only a lack of money is worth retrying; every other failure ends the period's attempts. */
export function isRetryable(reason: string | null): boolean {
  return reason === 'INSUFFICIENT_FUNDS';
}
