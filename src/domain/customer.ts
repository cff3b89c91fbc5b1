/** A customer is known per client: the same customer_id at two clients is two customers. */

/** One string naming (client, customer), for maps keyed by customer. */
export function customerKey(clientId: number, customerId: string): string {
  return `${clientId}\u0000${customerId}`;
}
