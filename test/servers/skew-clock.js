/**
 * Preload for child processes: this host's wall clock is CLOCK_SKEW_MS off (Date and Date.now),
 * as on a host whose clock drifted. The monotonic clock (performance.now) is untouched, as on a real host.
 */
const skew = Number(process.env.CLOCK_SKEW_MS || 0);
if (skew !== 0) {
  const RealDate = Date;
  const realNow = RealDate.now;
  class SkewedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(realNow() + skew);
      else super(...args);
    }
    static now() {
      return realNow() + skew;
    }
  }
  globalThis.Date = SkewedDate;
}
