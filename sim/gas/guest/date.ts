/** Replaces the context's Date so that `new Date()` and `Date.now()` read the virtual clock. */
import { now } from './channel';

export function installVirtualDate(g: Record<string, unknown>): void {
  const RealDate = g.Date as DateConstructor;
  function VirtualDate(this: unknown, ...args: unknown[]): unknown {
    if (!new.target) return new RealDate(now()).toString();
    if (args.length === 0) return Reflect.construct(RealDate, [now()], new.target);
    return Reflect.construct(RealDate, args, new.target);
  }
  VirtualDate.prototype = RealDate.prototype;
  Object.defineProperty(RealDate.prototype, 'constructor', {
    value: VirtualDate,
    writable: true,
    configurable: true,
  });
  Object.assign(VirtualDate, { now: () => now(), parse: RealDate.parse, UTC: RealDate.UTC });
  g.Date = VirtualDate;
}
