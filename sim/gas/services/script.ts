/** ScriptApp: triggers, ids, state tokens (used by the OAuth2 library's callback). */
import { GasError } from '../errors';
import { method, type ServiceContext, type ServiceTable } from './index';
import type { TriggerSpec } from './triggers';

function requireAuthorised(ctx: ServiceContext, what: string): void {
  if (ctx.exec.kind === 'simple') {
    throw new GasError(
      `You do not have permission to call ${what}. Required permissions: https://www.googleapis.com/auth/script.scriptapp`,
    );
  }
}

function view(t: TriggerSpec) {
  return {
    id: t.id,
    handler: t.handler,
    source: t.source,
    eventType: t.eventType,
    sourceId: t.sourceId ?? null,
  };
}

export const SCRIPT_SERVICE: ServiceTable = {
  scriptId: method('free', (ctx) => ctx.world.scriptId),
  createTrigger: method('other', (ctx, spec: Omit<TriggerSpec, 'id' | 'owner' | 'nextRun'>) => {
    requireAuthorised(ctx, 'ScriptApp.newTrigger');
    return view(ctx.world.triggers.create({ ...spec, owner: ctx.exec.user }, ctx.world.clock.now()));
  }),
  projectTriggers: method('other', (ctx) => {
    requireAuthorised(ctx, 'ScriptApp.getProjectTriggers');
    return ctx.world.triggers.visibleTo(ctx.exec.user).map(view);
  }),
  deleteTrigger: method('other', (ctx, id: string) => {
    requireAuthorised(ctx, 'ScriptApp.deleteTrigger');
    ctx.world.triggers.delete(id, ctx.exec.user);
  }),
  oauthToken: method('free', (ctx) => `ya29.sim-${ctx.exec.user}`),
  stateToken: method('other', (ctx, handler: string, args: Record<string, string>, timeoutSeconds: number) =>
    ctx.world.ui.createStateToken(handler, args, ctx.world.clock.now() + timeoutSeconds * 1000),
  ),
};
