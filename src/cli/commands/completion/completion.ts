/** `premia completion bash|zsh|fish`: the script on stdout (cli/completion.ts writes it). */
import type { Command } from 'commander';
import { completionScript, type Shell } from '../../completion.js';
import { verb, type CommandDeps, type Verb } from '../../command.js';

export interface CompletionOptions extends CommandDeps {
  shell: Shell;
}

export function completionVerb(program: Command): Verb<CompletionOptions> {
  return verb<unknown, CompletionOptions>(
    (deps, _flags, [shell]) => ({ ...deps, shell: shell as Shell }),
    async ({ ui, shell }) => {
      ui.write(completionScript(shell, program));
      return 0;
    },
  );
}
