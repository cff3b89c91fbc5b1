import { Argument, type Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RunState } from '../../command.js';
import { lazyAction } from '../action.js';

export function registerCompletion(program: Command, ctx: CliContext, state: RunState): void {
  program
    .command('completion')
    .description('print a shell completion script (commands, options, choices, file names)')
    .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh', 'fish']))
    .addHelpText(
      'after',
      `
Load it in the running shell:
  bash  source <(premia completion bash)
  zsh   source <(premia completion zsh)        (after compinit)
  fish  premia completion fish | source
Or save it where the shell looks for completions (see the examples).`,
    )
    // The script is generated from this very program, handed to the verb.
    .action(lazyAction(ctx, state, async () => ({ default: (await import('./completion.js')).completionVerb(program) })));
}
