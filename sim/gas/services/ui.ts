/**
 * The user interface as the world records it: menus added, toasts, alerts, prompts, dialogs and
 * sidebars, with scripted answers for alerts and prompts (tests queue them).
 */
import { GAS_MESSAGES, GasError } from '../errors';
import type { ExecutionState } from '../world';
import { method, type ServiceContext, type ServiceTable } from './method';

export interface MenuItemSpec {
  label?: string;
  handler?: string;
  separator?: boolean;
  submenu?: MenuSpec;
}

export interface MenuSpec {
  title: string;
  items: MenuItemSpec[];
}

export interface UiEvent {
  exec: number;
  user: string;
  type: 'toast' | 'alert' | 'prompt' | 'modal' | 'modeless' | 'sidebar' | 'menu' | 'authorization';
  /** authorization: the scopes Google's consent prompt asks for. */
  scopes?: string[];
  title?: string;
  message?: string;
  html?: string;
  buttons?: string;
  answer?: string;
  seconds?: number;
  width?: number;
  height?: number;
}

export interface ScriptedAnswer {
  button: string;
  text?: string;
}

interface StateToken {
  handler: string;
  args: Record<string, string>;
  expires: number;
}

export class UiLog {
  readonly events: UiEvent[] = [];
  /** Menus each user currently sees, by title. */
  readonly menus = new Map<string, Map<string, MenuSpec>>();
  /** Answers for the next alerts/prompts, in order; without one the default button is pressed. */
  readonly answers: ScriptedAnswer[] = [];
  private readonly tokens = new Map<string, StateToken>();

  record(exec: ExecutionState, event: Omit<UiEvent, 'exec' | 'user'>): UiEvent {
    const full = { exec: exec.id, user: exec.user, ...event };
    this.events.push(full);
    return full;
  }

  menusOf(user: string): MenuSpec[] {
    return [...(this.menus.get(user)?.values() ?? [])];
  }

  createStateToken(handler: string, args: Record<string, string>, expires: number): string {
    const token = `ADEa${(this.tokens.size + 1).toString(36).padStart(8, '0')}sim`;
    this.tokens.set(token, { handler, args, expires });
    return token;
  }

  resolveStateToken(token: string, now: number): { handler: string; args: Record<string, string> } | null {
    const t = this.tokens.get(token);
    if (!t || t.expires < now) return null;
    return { handler: t.handler, args: t.args };
  }
}

/** getUi() works only where a person is looking at the sheet: menu clicks and the onOpen simple trigger. */
function requireUi(ctx: ServiceContext): void {
  if (ctx.exec.kind !== 'menu' && ctx.exec.kind !== 'simple')
    throw new GasError(GAS_MESSAGES.getUiFromTrigger);
}

const DEFAULT_BUTTON: Record<string, string> = {
  OK: 'OK',
  OK_CANCEL: 'OK',
  YES_NO: 'YES',
  YES_NO_CANCEL: 'YES',
};

export const UI_SERVICE: ServiceTable = {
  get: method('free', (ctx) => requireUi(ctx)),
  addMenu: method('other', (ctx, menu: MenuSpec) => {
    requireUi(ctx);
    const ui = ctx.world.ui;
    let mine = ui.menus.get(ctx.exec.user);
    if (!mine) {
      mine = new Map();
      ui.menus.set(ctx.exec.user, mine);
    }
    mine.set(menu.title, menu);
    ui.record(ctx.exec, { type: 'menu', title: menu.title });
  }),
  alert: method('other', (ctx, title: string | null, message: string, buttons: string) => {
    requireUi(ctx);
    const answer = ctx.world.ui.answers.shift()?.button ?? DEFAULT_BUTTON[buttons] ?? 'OK';
    ctx.world.ui.record(ctx.exec, { type: 'alert', title: title ?? undefined, message, buttons, answer });
    return answer;
  }),
  prompt: method('other', (ctx, title: string | null, message: string, buttons: string) => {
    requireUi(ctx);
    const scripted = ctx.world.ui.answers.shift();
    const answer = scripted?.button ?? DEFAULT_BUTTON[buttons] ?? 'OK';
    ctx.world.ui.record(ctx.exec, { type: 'prompt', title: title ?? undefined, message, buttons, answer });
    return { button: answer, text: scripted?.text ?? '' };
  }),
  show: method(
    'other',
    (
      ctx,
      type: 'modal' | 'modeless' | 'sidebar',
      html: string,
      title: string | null,
      width: number | null,
      height: number | null,
    ) => {
      requireUi(ctx);
      ctx.world.ui.record(ctx.exec, {
        type,
        html,
        title: title ?? undefined,
        width: width ?? undefined,
        height: height ?? undefined,
      });
    },
  ),
};
