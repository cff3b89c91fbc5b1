/** Collection states (spec 3.2): where a policy's premium of one period stands. */

export const COLLECTION_STATUSES = ['PAID_FULL', 'PAID_PARTIAL', 'UNPAID', 'CANCELLED'] as const;
export type CollectionStatus = (typeof COLLECTION_STATUSES)[number];
/** The statuses by their code in the engine's day rows and image (engine/ports.ts UpdateColumns). */
export const STATUS_BY_CODE: readonly CollectionStatus[] = ['UNPAID', 'PAID_PARTIAL', 'PAID_FULL', 'CANCELLED'];
