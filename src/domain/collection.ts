/** Collection states (spec 3.2): where a policy's premium of one period stands. */

export const COLLECTION_STATUSES = ['PAID_FULL', 'PAID_PARTIAL', 'UNPAID', 'CANCELLED'] as const;
export type CollectionStatus = (typeof COLLECTION_STATUSES)[number];

/** Still being collected: the period may yet bring it money (until its last day has run). */
export function isOpenCollection(status: CollectionStatus): boolean {
  return status === 'UNPAID' || status === 'PAID_PARTIAL';
}
