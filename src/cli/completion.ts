/**
 * Shell completion scripts, generated from the commander program itself, so they always match
 * the commands: each command's subcommands, its options and the global ones, the choices of an
 * option or argument, and file or directory names where a value is a path. Nothing slow runs
 * while completing: the scripts hold their data and never call premia (ids, policy numbers and
 * profile names are not completed: that would need the store or a service).
 *
 * The scripts share one walk: the words typed so far are read left to right; an option that
 * takes a value skips the next word; a word naming a subcommand of the current command moves
 * into it. `premia help …` completes command names.
 */
import type { Argument, Command, Option } from 'commander';
import type { FieldsOption } from './output/list-options.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** What a value is, for completion. */
type ValueKind = { kind: 'choices'; choices: readonly string[] } | { kind: 'fields'; names: readonly string[] } | { kind: 'file' } | { kind: 'dir' } | { kind: 'none' };

interface OptionSpec {
  names: string[];
  takesValue: boolean;
  value: ValueKind;
  description: string;
}

interface CommandSpec {
  /** The command's words without `premia` ('' for the program). */
  path: string;
  commands: Array<{ name: string; description: string }>;
  options: OptionSpec[];
  /** What the positional arguments are (the first one's kind, repeated when it is variadic). */
  args: ValueKind[];
}

const FILE_WORDS = /^(file|path|output|policies|bank|html)$/;
const DIR_WORDS = /^(dir|directory|out)$/;

function valueOfName(name: string, choices: readonly string[] | undefined): ValueKind {
  if (choices && choices.length > 0) return { kind: 'choices', choices };
  const word = name.toLowerCase().replace(/[<>[\].]/g, '');
  if (DIR_WORDS.test(word)) return { kind: 'dir' };
  if (FILE_WORDS.test(word)) return { kind: 'file' };
  return { kind: 'none' };
}

function optionSpec(o: Option): OptionSpec {
  const fieldNames = (o as FieldsOption).fieldNames;
  if (fieldNames) return { names: [o.long!], takesValue: true, value: { kind: 'fields', names: fieldNames }, description: o.description };
  const names = [o.long, o.short].filter((n): n is string => typeof n === 'string');
  const takesValue = o.required || o.optional;
  const placeholder = /<([^>]+)>|\[([^\]]+)\]/.exec(o.flags);
  const valueName = placeholder ? (placeholder[1] ?? placeholder[2]!) : '';
  // The option's own name decides first (--output <file>, --out <dir>), then its placeholder.
  const own = valueOfName((o.long ?? '').replace(/^--/, ''), o.argChoices);
  return { names, takesValue, value: takesValue ? (own.kind !== 'none' ? own : valueOfName(valueName, o.argChoices)) : { kind: 'none' }, description: o.description };
}

function argSpec(a: Argument): ValueKind {
  return valueOfName(a.name(), a.argChoices);
}

/** Every command of the program (the program first), as completion sees it. */
export function completionModel(program: Command): CommandSpec[] {
  const out: CommandSpec[] = [];
  const walk = (c: Command, path: string) => {
    const visible = c.commands.filter((s) => !(s as Command & { _hidden?: boolean })._hidden);
    out.push({
      path,
      commands: visible.map((s) => ({ name: s.name(), description: s.description() })),
      options: c.options.filter((o) => !o.hidden).map(optionSpec).concat(path === '' ? [] : [{ names: ['--help', '-h'], takesValue: false, value: { kind: 'none' }, description: 'show help' }]),
      args: c.registeredArguments.map(argSpec),
    });
    for (const s of visible) walk(s, path === '' ? s.name() : `${path} ${s.name()}`);
  };
  walk(program, '');
  return out;
}

export function completionScript(shell: Shell, program: Command): string {
  const model = completionModel(program);
  switch (shell) {
    case 'bash':
      return bashScript(model);
    case 'zsh':
      return zshScript(model);
    case 'fish':
      return fishScript(model);
  }
}

/** A single-quoted shell word. */
const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** Options taking a value, of every command (the globals at '' apply everywhere). */
function valueOptions(model: CommandSpec[]): Array<{ path: string; name: string; value: ValueKind }> {
  return model.flatMap((c) => c.options.filter((o) => o.takesValue).flatMap((o) => o.names.map((name) => ({ path: c.path, name, value: o.value }))));
}

// ---------------------------------------------------------------------------------------------
// bash

function bashScript(model: CommandSpec[]): string {
  const globals = model[0]!;
  const caseOf = (lines: string[], fallback: string) => [...lines, `    *) ${fallback} ;;`].join('\n');
  const commands = caseOf(
    model.filter((c) => c.commands.length > 0).map((c) => `    ${q(c.path)}) echo ${q(c.commands.map((s) => s.name).join(' '))} ;;`),
    'return 1',
  );
  const options = caseOf(
    model.slice(1).map((c) => `    ${q(c.path)}) echo ${q(c.options.flatMap((o) => o.names).join(' '))} ;;`),
    'echo',
  );
  const valueLines = valueOptions(model).map((v) => `    ${q(`${v.path}|${v.name}`)}) echo ${q(bashValue(v.value))} ;;`);
  // A global option is known at every level.
  const values = caseOf(valueLines, `case "|$2" in\n${valueOptions([globals]).map((v) => `      ${q(`|${v.name}`)}) echo ${q(bashValue(v.value))} ;;`).join('\n')}\n      *) return 1 ;;\n    esac`);
  const args = caseOf(
    model.filter((c) => c.args.length > 0).map((c) => `    ${q(c.path)}) echo ${q(bashValue(c.args[0]!))} ;;`),
    'echo none',
  );
  return `# bash completion for premia, generated by 'premia completion bash'.
# Load it now:      source <(premia completion bash)
# Or for good:      premia completion bash > ~/.local/share/bash-completion/completions/premia

# The subcommands of a command (its words without 'premia'); status 1 when it has none.
_premia_commands() {
  case "$1" in
${commands}
  esac
}

# The options of a command, besides the global ones.
_premia_options() {
  case "$1" in
${options}
  esac
}

# What the value of option $2 of command $1 is: 'choices: …', file, dir or none; status 1 when it takes no value.
_premia_value() {
  case "$1|$2" in
${values}
  esac
}

# What the positional arguments of a command are.
_premia_args() {
  case "$1" in
${args}
  esac
}

_premia_complete_value() {
  local cur="$1" kind="$2"
  case "$kind" in
    choices:*) COMPREPLY=($(compgen -W "\${kind#choices:}" -- "$cur")) ;;
    fields:*)
      # a,b,c: the field names, after what is typed before the last comma.
      local prefix=''
      [[ "$cur" == *,* ]] && prefix="\${cur%,*},"
      COMPREPLY=($(compgen -P "$prefix" -W "\${kind#fields:}" -- "\${cur##*,}"))
      compopt -o nospace 2>/dev/null ;;
    file) COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null ;;
    dir) COMPREPLY=($(compgen -d -- "$cur")); compopt -o filenames 2>/dev/null ;;
    *) COMPREPLY=() ;;
  esac
}

_premia() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmdpath="" helping=0 skip=0 word next kind i
  COMPREPLY=()
  for (( i = 1; i < COMP_CWORD; i++ )); do
    word="\${COMP_WORDS[i]}"
    if (( skip )); then skip=0; continue; fi
    case "$word" in
      --*=*) continue ;;
      -*) if _premia_value "$cmdpath" "$word" >/dev/null; then skip=1; fi; continue ;;
    esac
    if [[ -z "$cmdpath" && $helping -eq 0 && "$word" == help ]]; then helping=1; continue; fi
    next="\${cmdpath:+$cmdpath }$word"
    if _premia_commands "$cmdpath" >/dev/null && [[ " $(_premia_commands "$cmdpath") " == *" $word "* ]]; then cmdpath="$next"; fi
  done
  if (( skip )); then
    _premia_complete_value "$cur" "$(_premia_value "$cmdpath" "\${COMP_WORDS[COMP_CWORD-1]}")"
    return 0
  fi
  if [[ "$cur" == -* && $helping -eq 0 ]]; then
    COMPREPLY=($(compgen -W "$(_premia_options "$cmdpath") ${globals.options.flatMap((o) => o.names).join(' ')}" -- "$cur"))
    return 0
  fi
  if _premia_commands "$cmdpath" >/dev/null; then
    COMPREPLY=($(compgen -W "$(_premia_commands "$cmdpath")" -- "$cur"))
    return 0
  fi
  (( helping )) && return 0
  _premia_complete_value "$cur" "$(_premia_args "$cmdpath")"
}

complete -F _premia premia
`;
}

function bashValue(v: ValueKind): string {
  if (v.kind === 'choices') return `choices:${v.choices.join(' ')}`;
  if (v.kind === 'fields') return `fields:${v.names.join(' ')}`;
  return v.kind;
}

// ---------------------------------------------------------------------------------------------
// zsh

function zshScript(model: CommandSpec[]): string {
  const globals = model[0]!;
  const describe = (items: Array<{ name: string; description: string }>) => items.map((s) => q(`${s.name.replace(/:/g, '\\:')}:${oneLine(s.description)}`)).join(' ');
  const optionItems = (c: CommandSpec) => c.options.flatMap((o) => o.names.map((n) => ({ name: n, description: o.description })));
  const commands = model
    .filter((c) => c.commands.length > 0)
    .map((c) => `    ${q(c.path)}) items=(${describe(c.commands)}) ;;`)
    .join('\n');
  const options = model
    .slice(1)
    .map((c) => `    ${q(c.path)}) items=(${describe(optionItems(c))}) ;;`)
    .join('\n');
  const valueLines = valueOptions(model)
    .filter((v) => v.path !== '')
    .map((v) => `    ${q(`${v.path}|${v.name}`)}) kind=${q(bashValue(v.value))} ;;`)
    .join('\n');
  const globalValues = valueOptions([globals])
    .map((v) => `      ${q(v.name)}) kind=${q(bashValue(v.value))} ;;`)
    .join('\n');
  const args = model
    .filter((c) => c.args.length > 0)
    .map((c) => `    ${q(c.path)}) kind=${q(bashValue(c.args[0]!))} ;;`)
    .join('\n');
  return `#compdef premia
# zsh completion for premia, generated by 'premia completion zsh'.
# Load it now:      source <(premia completion zsh)
# Or for good:      premia completion zsh > "\${fpath[1]}/_premia"   (then start a new shell)

_premia_value_kind() {
  # $1: the command's words, $2: an option. Sets kind; status 1 when the option takes no value.
  kind=''
  case "$1|$2" in
${valueLines}
    *)
      case "$2" in
${globalValues}
        *) return 1 ;;
      esac ;;
  esac
  return 0
}

_premia_complete_kind() {
  case "$1" in
    choices:*) local -a words; words=(\${=\${1#choices:}}); compadd -a words ;;
    fields:*) _values -s , 'field' \${=\${1#fields:}} ;;
    file) _files ;;
    dir) _files -/ ;;
  esac
}

_premia() {
  local cmdpath='' word kind i helping=0 skip=0
  local -a items subs
  for (( i = 2; i < CURRENT; i++ )); do
    word="\${words[i]}"
    if (( skip )); then skip=0; continue; fi
    case "$word" in
      --*=*) continue ;;
      -*) if _premia_value_kind "$cmdpath" "$word"; then skip=1; fi; continue ;;
    esac
    if [[ -z "$cmdpath" && $helping -eq 0 && "$word" == help ]]; then helping=1; continue; fi
    items=()
    case "$cmdpath" in
${commands}
    esac
    subs=(\${items%%:*})
    if (( \${subs[(Ie)$word]} )); then cmdpath="\${cmdpath:+$cmdpath }$word"; fi
  done
  if (( skip )); then
    _premia_value_kind "$cmdpath" "\${words[CURRENT-1]}" && _premia_complete_kind "$kind"
    return
  fi
  if [[ "\${words[CURRENT]}" == -* && $helping -eq 0 ]]; then
    items=()
    case "$cmdpath" in
${options}
    esac
    items+=(${describe(optionItems(globals))})
    _describe -t options 'option' items
    return
  fi
  items=()
  case "$cmdpath" in
${commands}
  esac
  if (( \${#items} > 0 )); then
    _describe -t commands 'command' items
    return
  fi
  (( helping )) && return
  kind=none
  case "$cmdpath" in
${args}
  esac
  _premia_complete_kind "$kind"
}

if [[ "\${funcstack[1]}" == _premia ]]; then
  _premia "$@"
else
  compdef _premia premia
fi
`;
}

// ---------------------------------------------------------------------------------------------
// fish

function fishScript(model: CommandSpec[]): string {
  const fq = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const lines: string[] = [];
  const tree = model
    .filter((c) => c.commands.length > 0)
    .map((c) => `        case ${fq(c.path)}\n            printf '%s\\n' ${c.commands.map((s) => fq(s.name)).join(' ')}`)
    .join('\n');
  const takes = valueOptions(model)
    .map((v) => `        case ${fq(`${v.path}|${v.name}`)}\n            return 0`)
    .join('\n');
  const globalTakes = valueOptions([model[0]!]).map((v) => fq(v.name)).join(' ');
  lines.push(
    `# fish completion for premia, generated by 'premia completion fish'.`,
    `# Load it now:      premia completion fish | source`,
    `# Or for good:      premia completion fish > ~/.config/fish/completions/premia.fish`,
    '',
    'function __premia_subcommands --argument-names cmdpath',
    '    switch $cmdpath',
    tree,
    '    end',
    'end',
    '',
    'function __premia_takes_value --argument-names cmdpath option',
    `    contains -- $option ${globalTakes}; and return 0`,
    '    switch "$cmdpath|$option"',
    takes,
    '    end',
    '    return 1',
    'end',
    '',
    '# The command the words typed so far are in (its words without premia).',
    'function __premia_path',
    '    set -l words (commandline -opc)',
    "    set -l cmdpath ''",
    '    set -l skip 0',
    '    for word in $words[2..-1]',
    '        if test $skip -eq 1',
    '            set skip 0',
    '            continue',
    '        end',
    '        switch $word',
    "            case '--*=*'",
    '                continue',
    "            case '-*'",
    '                __premia_takes_value "$cmdpath" $word; and set skip 1',
    '                continue',
    '        end',
    "        if test -z \"$cmdpath\"; and test \"$word\" = help",
    '            continue',
    '        end',
    '        if contains -- $word (__premia_subcommands "$cmdpath")',
    '            if test -z "$cmdpath"',
    '                set cmdpath $word',
    '            else',
    '                set cmdpath "$cmdpath $word"',
    '            end',
    '        end',
    '    end',
    '    echo $cmdpath',
    'end',
    '',
    'complete -c premia -f',
  );
  const when = (path: string) => `-n ${fq(`test (__premia_path) = ${fq(path)}`)}`;
  for (const c of model) {
    for (const s of c.commands) lines.push(`complete -c premia ${when(c.path)} -a ${fq(s.name)} -d ${fq(oneLine(s.description))}`);
    for (const o of c.options) {
      const long = o.names.find((n) => n.startsWith('--'));
      const short = o.names.find((n) => /^-[^-]$/.test(n));
      let line = `complete -c premia${c.path === '' ? '' : ` ${when(c.path)}`}`;
      if (long) line += ` -l ${long.slice(2)}`;
      if (short) line += ` -s ${short.slice(1)}`;
      if (o.takesValue) {
        // -x: a value, and no file names; -r -F: a value that is a path.
        if (o.value.kind === 'choices') line += ` -x -a ${fq(o.value.choices.join(' '))}`;
        // fish offers the first field (its own comma lists need a function; not worth the weight here).
        else if (o.value.kind === 'fields') line += ` -x -a ${fq(o.value.names.join(' '))}`;
        else if (o.value.kind === 'file' || o.value.kind === 'dir') line += ' -r -F';
        else line += ' -x';
      }
      line += ` -d ${fq(oneLine(o.description))}`;
      lines.push(line);
    }
    const arg = c.args[0];
    if (arg?.kind === 'choices') lines.push(`complete -c premia ${when(c.path)} -a ${fq(arg.choices.join(' '))}`);
    else if (arg?.kind === 'file' || arg?.kind === 'dir') lines.push(`complete -c premia ${when(c.path)} -F`);
  }
  return `${lines.join('\n')}\n`;
}
