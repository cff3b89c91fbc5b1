/**
 * A progress display on stderr: an ora spinner when stderr is a terminal (loaded only then),
 * nothing otherwise, so logs and pipes stay clean.
 */
import type { Ui } from './ui.js';

export interface Progress {
  update(text: string): void;
  succeed(text?: string): void;
  fail(text?: string): void;
  stop(): void;
}

const SILENT: Progress = { update() {}, succeed() {}, fail() {}, stop() {} };

export async function startProgress(ui: Ui, text: string): Promise<Progress> {
  if (!ui.interactive) return SILENT;
  const { default: ora } = await import('ora');
  const spinner = ora({ text, stream: ui.ctx.stderr as NodeJS.WritableStream, isEnabled: true, color: 'cyan' }).start();
  return {
    update(t) {
      spinner.text = t;
    },
    succeed(t) {
      spinner.succeed(t);
    },
    fail(t) {
      spinner.fail(t);
    },
    stop() {
      spinner.stop();
    },
  };
}
