/** Session: who runs the execution, and the script time zone. */
import { SCOPE } from '../authorization';
import { method, type ServiceContext, type ServiceTable } from './method';

/** Without userinfo.email granted the address reads as empty (assumption: README "Switches", grants). */
function emailGranted(ctx: ServiceContext): boolean {
  return ctx.exec.kind === 'simple' || ctx.world.grants.has(ctx.exec.user, SCOPE.email);
}

export const SESSION_SERVICE: ServiceTable = {
  /**
   * A simple trigger may not know the user (reference/gas-platform.md §4.2: "identity may be
   * unknown"); other executions know the account that runs them (a trigger's is its creator).
   */
  activeUser: method('free', (ctx) =>
    (ctx.exec.kind === 'simple' && ctx.exec.user !== ctx.world.owner) || !emailGranted(ctx)
      ? ''
      : ctx.exec.user,
  ),
  effectiveUser: method('free', (ctx) => (emailGranted(ctx) ? ctx.exec.user : '')),
  timeZone: method('free', (ctx) => ctx.world.timeZone),
  locale: method('free', () => 'ja'),
  temporaryUserKey: method('free', (ctx) => `sim-${Buffer.from(ctx.exec.user).toString('base64url')}`),
};
