/**
 * Serves the dialogs and sidebars a bundle shows, to a real browser, with `google.script.run` wired
 * to the emulator: open a menu entry in the emulator, take the HTML it showed, serve it on 127.0.0.1
 * with a shim (shim.js) that turns each server call into an emulator execution by the same user.
 * Used by the browser tests (test/browser) and for screenshots.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Emulator, ExecutionResult } from '../gas/index';

const SHIM = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'shim.js'), 'utf8');

export interface ServerCall {
  fn: string;
  args: unknown[];
  result: ExecutionResult;
}

export interface ShownPage {
  url: string;
  type: string;
  title?: string;
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The shim goes first in <head>, so the page's own scripts find google.script ready. */
function withShim(html: string): string {
  const tag = '<script src="/__gas/shim.js"></script>';
  const head = /<head[^>]*>/i.exec(html);
  if (head) return html.slice(0, head.index + head[0].length) + tag + html.slice(head.index + head[0].length);
  return tag + html;
}

export class DialogServer {
  private server: Server | null = null;
  private readonly pages: string[] = [];
  /** Every google.script.run call, in order. */
  readonly calls: ServerCall[] = [];
  /** Set when the page called google.script.host.close(). */
  closed = false;
  base = '';

  constructor(
    private readonly emu: Emulator,
    private readonly user: string,
  ) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      void this.handle(req).then(
        ({ status, type, text }) => {
          res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
          res.end(text);
        },
        (e: unknown) => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(String(e));
        },
      );
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Serves a page as is (the shim's own tests). */
  serve(html: string): string {
    this.pages.push(html);
    return `${this.base}/page/${this.pages.length - 1}`;
  }

  /** Runs a menu entry as `user` and serves the dialog or sidebar it showed. */
  open(entry: string, args: unknown[] = []): ShownPage {
    const before = this.emu.world.ui.events.length;
    const result = this.emu.run(entry, { kind: 'menu', user: this.user, args });
    if (result.status !== 'ok') throw new Error(`${entry} failed: ${result.error?.message}`);
    const shown = this.emu.world.ui.events
      .slice(before)
      .filter((e) => e.html !== undefined && ['modal', 'modeless', 'sidebar'].includes(e.type))
      .pop();
    if (!shown?.html) throw new Error(`${entry} showed no dialog or sidebar`);
    this.pages.push(shown.html);
    this.closed = false;
    return { url: `${this.base}/page/${this.pages.length - 1}`, type: shown.type, title: shown.title };
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; type: string; text: string }> {
    const url = new URL(req.url ?? '/', this.base);
    if (req.method === 'GET' && url.pathname === '/__gas/shim.js') {
      return { status: 200, type: 'text/javascript', text: SHIM };
    }
    const page = /^\/page\/(\d+)$/.exec(url.pathname);
    if (req.method === 'GET' && page) {
      const html = this.pages[Number(page[1])];
      if (html === undefined) return { status: 404, type: 'text/plain', text: 'no such page' };
      return { status: 200, type: 'text/html; charset=utf-8', text: withShim(html) };
    }
    if (req.method === 'POST' && url.pathname === '/__gas/run') {
      const { fn, args } = JSON.parse(await body(req)) as { fn: string; args: unknown[] };
      if (fn.endsWith('_')) {
        // Apps Script hides functions whose names end with an underscore from the client.
        const message = `Script function not found: ${fn}`;
        return {
          status: 200,
          type: 'application/json',
          text: JSON.stringify({ ok: false, error: { name: 'ScriptError', message } }),
        };
      }
      // Each google.script.run call is its own execution, by the person who has the dialog open.
      const result = this.emu.run(fn, { kind: 'menu', user: this.user, args });
      this.calls.push({ fn, args, result });
      const reply =
        result.status === 'ok'
          ? { ok: true, value: result.value ?? null }
          : {
              ok: false,
              error: {
                name: result.error?.name ?? 'ScriptError',
                message: result.error?.message ?? result.status,
              },
            };
      return { status: 200, type: 'application/json', text: JSON.stringify(reply) };
    }
    if (req.method === 'POST' && url.pathname === '/__gas/host') {
      const { action } = JSON.parse(await body(req)) as { action: string };
      if (action === 'close') this.closed = true;
      return { status: 200, type: 'application/json', text: '{}' };
    }
    return { status: 404, type: 'text/plain', text: 'not found' };
  }
}
