/**
 * A request's field problems worded as the command line's options: `policies create --amount -5`
 * said "The policy is not valid: collection_amount '-5' is negative; …", naming the API's field
 * where every other option error names the option (`--days must be …; got '-1'.`).
 */
import { PremiaError, validationError, type FieldError } from '../domain/errors.js';

/**
 * What `check` returns; a VALIDATION_ERROR it throws whose every detail is about a field in
 * `options` (field name → option) is thrown again in the options' words (the details keep their
 * fields, as the service names them). Any other error is thrown as it is.
 */
export function inOptionWords<T>(options: Readonly<Record<string, string>>, check: () => T): T {
  try {
    return check();
  } catch (e) {
    throw reworded(e, options);
  }
}

function reworded(e: unknown, options: Readonly<Record<string, string>>): unknown {
  if (!(e instanceof PremiaError) || e.code !== 'VALIDATION_ERROR' || !Array.isArray(e.details) || e.details.length === 0) return e;
  const details = e.details as FieldError[];
  const words: FieldError[] = [];
  for (const d of details) {
    const option = Object.hasOwn(options, d.field) ? options[d.field] : undefined;
    // A detail that does not begin with its field's name is left as the service words it.
    if (option === undefined || typeof d.message !== 'string' || !d.message.startsWith(`${d.field} `)) return e;
    words.push({ ...d, message: `${option} ${d.message.slice(d.field.length + 1)}` });
  }
  if (words.length === 1) return validationError(`${words[0]!.message}.`, words);
  const named = [...new Set(details.map((d) => options[d.field]!))].join(', ');
  return validationError(`The options have ${words.length} problems (${named}); see details.`, words);
}
