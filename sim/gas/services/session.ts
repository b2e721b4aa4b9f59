/** Session: who runs the execution, and the script time zone. */
import { method, type ServiceTable } from './index';

export const SESSION_SERVICE: ServiceTable = {
  /**
   * A simple trigger may not know the user (reference/gas-platform.md §4.2: "identity may be
   * unknown"); other executions know the account that runs them (a trigger's is its creator).
   */
  activeUser: method('free', (ctx) =>
    ctx.exec.kind === 'simple' && ctx.exec.user !== ctx.world.owner ? '' : ctx.exec.user,
  ),
  effectiveUser: method('free', (ctx) => ctx.exec.user),
  timeZone: method('free', (ctx) => ctx.world.timeZone),
  locale: method('free', () => 'ja'),
  temporaryUserKey: method('free', (ctx) => `sim-${Buffer.from(ctx.exec.user).toString('base64url')}`),
};
