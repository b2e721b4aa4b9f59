/** Ui, Menu and the dialog calls, recorded by the world. */
import type { MenuItemSpec, MenuSpec } from '../services/ui';
import { call } from './channel';
import type { HtmlOutput } from './html';

class Menu {
  private readonly items: MenuItemSpec[] = [];
  constructor(private readonly title: string) {}
  addItem(label: string, handler: string): Menu {
    this.items.push({ label, handler });
    return this;
  }
  addSeparator(): Menu {
    this.items.push({ separator: true });
    return this;
  }
  addSubMenu(menu: Menu): Menu {
    this.items.push({ submenu: menu.spec() });
    return this;
  }
  spec(): MenuSpec {
    return { title: this.title, items: this.items.slice() };
  }
  addToUi(): void {
    call('ui', 'addMenu', this.spec());
  }
}

const ButtonSet = {
  OK: 'OK',
  OK_CANCEL: 'OK_CANCEL',
  YES_NO: 'YES_NO',
  YES_NO_CANCEL: 'YES_NO_CANCEL',
} as const;
const Button = { CLOSE: 'CLOSE', OK: 'OK', CANCEL: 'CANCEL', YES: 'YES', NO: 'NO' } as const;

function html(output: HtmlOutput | string): string {
  return typeof output === 'string' ? output : output.getContent();
}

function dims(output: HtmlOutput | string): [number | null, number | null] {
  return typeof output === 'string' ? [null, null] : [output.getWidth(), output.getHeight()];
}

export function makeUi() {
  return {
    ButtonSet,
    Button,
    createMenu: (title: string) => new Menu(title),
    createAddonMenu: () => new Menu('アドオン'),
    alert: (a: string, b?: string, c?: string) => {
      // alert(prompt) | alert(prompt, buttons) | alert(title, prompt, buttons)
      if (c !== undefined) return call<string>('ui', 'alert', a, b, c);
      if (b !== undefined && b in ButtonSet) return call<string>('ui', 'alert', null, a, b);
      return call<string>('ui', 'alert', b === undefined ? null : a, b ?? a, 'OK');
    },
    prompt: (a: string, b?: string, c?: string) => {
      const r =
        c !== undefined
          ? call<{ button: string; text: string }>('ui', 'prompt', a, b, c)
          : b !== undefined && b in ButtonSet
            ? call<{ button: string; text: string }>('ui', 'prompt', null, a, b)
            : call<{ button: string; text: string }>(
                'ui',
                'prompt',
                b === undefined ? null : a,
                b ?? a,
                'OK',
              );
      return { getSelectedButton: () => r.button, getResponseText: () => r.text };
    },
    showModalDialog: (output: HtmlOutput | string, title: string) => {
      call('ui', 'show', 'modal', html(output), title, ...dims(output));
    },
    showModelessDialog: (output: HtmlOutput | string, title: string) => {
      call('ui', 'show', 'modeless', html(output), title, ...dims(output));
    },
    showSidebar: (output: HtmlOutput | string) => {
      const title = typeof output === 'string' ? null : output.getTitle();
      call('ui', 'show', 'sidebar', html(output), title, ...dims(output));
    },
  };
}
