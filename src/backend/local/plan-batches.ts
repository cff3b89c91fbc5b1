/** The plan batches' format lives with the store (src/store/plan-batches.ts); this name stays for collections.ts. */
export { decodePlans, encodePlans, type PlanEntry } from '../../store/plan-batches.js';
