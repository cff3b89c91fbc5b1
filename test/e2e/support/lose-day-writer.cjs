// Preloaded by lost-thread.test.ts (node --require): the day writer's thread ends as soon as it
// is ready. PREMIA_LOSE_DAY_WRITER=terminate: as a terminate ends it (its 'exit' heard);
// =unheard: and no event of it reaches premia after that (its 'exit' and 'error' listeners are
// never called), so that premia is left waiting for a thread that is gone.
const threads = require('node:worker_threads');
const Base = threads.Worker;
threads.Worker = class extends Base {
  constructor(file, options) {
    super(file, options);
    if (!String(file).endsWith('day-writer.js')) return;
    const mode = process.env.PREMIA_LOSE_DAY_WRITER;
    if (mode === 'unheard') {
      this.on = this.once = (event, listener) => (event === 'exit' || event === 'error' ? this : Base.prototype.on.call(this, event, listener));
    }
    Base.prototype.once.call(this, 'message', () => void this.terminate());
  }
};
