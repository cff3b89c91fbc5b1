import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import type { RunState } from '../command.js';
import { registerBank } from './bank/index.js';
import { registerCalendar } from './calendar/index.js';
import { registerClock } from './clock/index.js';
import { registerCollections } from './collections/index.js';
import { registerKeys } from './keys/index.js';
import { registerLogin } from './login/index.js';
import { registerLogout } from './logout/index.js';
import { registerPolicies } from './policies/index.js';
import { registerServe } from './serve/index.js';
import { registerReports } from './reports/index.js';
import { registerSettings } from './settings/index.js';
import { registerSettlements } from './settlements/index.js';
import { registerSimulate } from './simulate/index.js';
import { registerWhoami } from './whoami/index.js';

export function registerCommands(program: Command, ctx: CliContext, state: RunState): void {
  registerPolicies(program, ctx, state);
  registerCollections(program, ctx, state);
  registerClock(program, ctx, state);
  registerBank(program, ctx, state);
  registerKeys(program, ctx, state);
  registerSettings(program, ctx, state);
  registerCalendar(program, ctx, state);
  registerServe(program, ctx, state);
  registerReports(program, ctx, state);
  registerSettlements(program, ctx, state);
  registerSimulate(program, ctx, state);
  registerLogin(program, ctx, state);
  registerLogout(program, ctx, state);
  registerWhoami(program, ctx, state);
}
