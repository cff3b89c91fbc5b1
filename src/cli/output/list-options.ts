/** The options of list commands (see list.ts); light enough to load with every --help. */
import { Option } from 'commander';

export const LIST_FORMATS = ['table', 'csv', 'json'] as const;
export type ListFormat = (typeof LIST_FORMATS)[number];

/** --format of a list command. */
export function formatOption(): Option {
  return new Option('--format <format>', 'table (default), csv or json').choices(LIST_FORMATS);
}

/** --fields of a list command; `names` are the fields it accepts. */
export function fieldsOption(names: readonly string[]): Option {
  const option: FieldsOption = new Option('--fields <a,b,c>', `only these fields, in this order: ${names.join(', ')}`);
  option.fieldNames = names;
  return option;
}

/** A --fields option knows its field names (shell completion offers them, comma after comma). */
export type FieldsOption = Option & { fieldNames?: readonly string[] };
