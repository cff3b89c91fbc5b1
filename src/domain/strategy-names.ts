/**
 * The names of the collection strategies, for the layers that may not load the engine (the CLI
 * offers them as `--strategy` choices). The strategies themselves are in engine/strategies/ and
 * registered in engine/strategies.ts, whose registry is typed `Record<StrategyName, Strategy>`:
 * a strategy registered without its name here, or a name here without a strategy, does not
 * compile. The first is the default.
 */
export const STRATEGY_NAMES = ['smart', 'naive', 'oracle'] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];
export const DEFAULT_STRATEGY: StrategyName = STRATEGY_NAMES[0];
