/** Collection states (spec 3.2): where a policy's premium of one period stands. */

export const COLLECTION_STATUSES = ['PAID_FULL', 'PAID_PARTIAL', 'UNPAID', 'CANCELLED'] as const;
export type CollectionStatus = (typeof COLLECTION_STATUSES)[number];
