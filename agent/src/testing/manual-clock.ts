/** Test helper: a clock for the enforcer that moves only when the test says so. */
import type { Clock, Enforcer, TimerHandle } from "../enforcer.ts";

/** A clock driven by the test: timers fire only when `advance` passes their due time. */
export class ManualClock implements Clock {
  /** Now, epoch milliseconds (settable). */
  t = Date.UTC(2026, 0, 1);
  #timers: { at: number; fn: () => void; cancelled: boolean }[] = [];
  /** Reads `t`. */
  now(): number {
    return this.t;
  }
  /** Registers a timer due `ms` milliseconds from now. */
  setTimer(fn: () => void, ms: number): TimerHandle {
    const timer = { at: this.t + ms, fn, cancelled: false };
    this.#timers.push(timer);
    return { cancel: () => void (timer.cancelled = true) };
  }
  /** Moves time forward by `ms`, firing due timers in order and letting their work run. */
  async advance(ms: number, enforcer: Enforcer): Promise<void> {
    const end = this.t + ms;
    for (let guard = 0; guard < 1000; guard++) {
      const due = this.#timers.filter((x) => !x.cancelled && x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      due.cancelled = true;
      this.t = Math.max(this.t, due.at);
      due.fn();
      await enforcer.idle();
    }
    this.t = end;
  }
}
