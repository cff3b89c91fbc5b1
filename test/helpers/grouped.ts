/**
 * Money as human output shows it (sentences, key/value blocks, terminal tables): grouped by
 * thousands, two decimals. Written independently of src (Intl), so a test of that output does
 * not compare the product's formatter with itself.
 */
export const groupedCents = (cents: number): string =>
  `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100).toLocaleString('en-US')}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;

/** The same for an amount in currency units as JSON carries it (12345.6 → "12,345.60"). */
export const groupedUnits = (amount: number): string => groupedCents(Math.round(amount * 100));
