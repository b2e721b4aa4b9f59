/** ScriptApp: triggers, ids, state tokens (used by the OAuth2 library's callback). */
import { GAS_MESSAGES, GasError } from '../errors';
import { method, type ServiceContext, type ServiceTable } from './method';
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

/** Where Google's consent page for this script is (URL shape not verified live: README "Switches"). */
function authorizationUrl(ctx: ServiceContext): string {
  return `https://script.google.com/macros/d/${ctx.world.scriptId}/authorize`;
}

export interface AuthorizationView {
  status: 'REQUIRED' | 'NOT_REQUIRED';
  url: string | null;
  authorized: string[];
}

/**
 * ScriptApp.requireScopes / requireAllScopes: with consent missing, the execution ends and a person
 * running it from a menu sees Google's consent prompt for the missing scopes.
 */
function requireScopes(ctx: ServiceContext, scopes: readonly string[]): void {
  const { grants } = ctx.world;
  const unknown = scopes.filter((s) => !grants.manifest.includes(s));
  if (unknown.length > 0) throw new GasError(`Invalid argument: oAuthScopes (${unknown.join(', ')})`);
  const missing = grants.missing(ctx.exec.user, scopes);
  if (missing.length === 0) return;
  if (ctx.exec.kind === 'menu' || ctx.exec.kind === 'editor') {
    ctx.world.ui.record(ctx.exec, { type: 'authorization', scopes: missing });
  }
  throw new GasError(GAS_MESSAGES.authorizationRequired);
}

export const SCRIPT_SERVICE: ServiceTable = {
  /** getAuthorizationInfo(authMode[, oAuthScopes]): needs no scope itself. */
  authorizationInfo: method('free', (ctx, scopes?: string[] | null): AuthorizationView => {
    const { grants } = ctx.world;
    const asked = scopes ?? grants.manifest;
    const authorized = asked.filter((s) => grants.has(ctx.exec.user, s));
    const required = authorized.length < asked.length;
    return {
      status: required ? 'REQUIRED' : 'NOT_REQUIRED',
      url: required ? authorizationUrl(ctx) : null,
      authorized,
    };
  }),
  requireScopes: method('free', (ctx, scopes: string[]) => requireScopes(ctx, scopes)),
  requireAllScopes: method('free', (ctx) => requireScopes(ctx, ctx.world.grants.manifest)),
  scriptId: method('free', (ctx) => ctx.world.scriptId),
  /** ScriptApp.getService().getUrl(): the web app's /exec URL, null when the script is not deployed (world.webAppDeployment). */
  serviceUrl: method('free', (ctx) =>
    ctx.world.webAppDeployment === null
      ? null
      : `https://script.google.com/macros/s/${ctx.world.webAppDeployment}/exec`,
  ),
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
