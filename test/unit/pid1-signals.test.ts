/**
 * Where the CLI hears signals (src/app/signals.ts): as process 1 of a PID namespace, a signal no
 * handler of premia's takes ends the process with 128 + its number; a handler of premia's alone
 * decides where there is one. The process is an emitter with a pid, the exit a recorder.
 * test/e2e/pid1-signals.test.ts sends real signals to the binary as process 1.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { cliSignals } from '../../src/app/signals.js';
import { catchCtrlC } from '../../src/cli/interrupt.js';

function host(pid: number) {
  const proc = Object.assign(new EventEmitter(), { pid });
  const exits: number[] = [];
  const signals = cliSignals(proc, (code) => exits.push(code));
  return { proc, signals, exits };
}

describe('any other process', () => {
  it('hears signals on the process itself, which gets no listener of this', () => {
    const { proc, signals } = host(4242);
    expect(signals).toBe(proc);
    expect(['SIGHUP', 'SIGINT', 'SIGTERM'].map((s) => proc.listenerCount(s))).toEqual([0, 0, 0]);
  });
});

describe('process 1', () => {
  it('a signal no handler of premia takes ends it: SIGHUP 129, SIGINT 130, SIGTERM 143', () => {
    const { proc, exits } = host(1);
    proc.emit('SIGHUP', 'SIGHUP');
    proc.emit('SIGINT', 'SIGINT');
    proc.emit('SIGTERM', 'SIGTERM');
    expect(exits).toEqual([129, 130, 143]);
  });

  it("a handler of premia's (serve's SIGTERM) alone decides: told the signal's name, nothing ends", () => {
    const { proc, signals, exits } = host(1);
    const heard: unknown[] = [];
    signals.on('SIGTERM', (name) => heard.push(name));
    proc.emit('SIGTERM', 'SIGTERM');
    expect({ heard, exits }).toEqual({ heard: ['SIGTERM'], exits: [] });
  });

  it("Ctrl-C during long work: the first is catchCtrlC's, the second (every listener removed) ends it, exit 130", () => {
    const { proc, signals, exits } = host(1);
    let firsts = 0;
    const ctrlC = catchCtrlC({ signals }, () => firsts++);
    proc.emit('SIGINT', 'SIGINT');
    expect({ firsts, aborted: ctrlC.signal.aborted, listening: signals.listenerCount('SIGINT'), exits }).toEqual({ firsts: 1, aborted: true, listening: 0, exits: [] });
    proc.emit('SIGINT', 'SIGINT');
    expect({ firsts, exits }).toEqual({ firsts: 1, exits: [130] });
    ctrlC.release();
  });

  it('once the work is done, a first Ctrl-C is let pass as elsewhere; a second ends it', () => {
    const { proc, signals, exits } = host(1);
    catchCtrlC({ signals }, () => {}).release();
    proc.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([]);
    proc.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([130]);
  });

  it('a signal a command emits itself (engine work: SIGTERM as SIGINT) ends nothing', () => {
    const { signals, exits } = host(1);
    expect(signals.emit('SIGINT', 'SIGINT')).toBe(false);
    expect(exits).toEqual([]);
  });
});
