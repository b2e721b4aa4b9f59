/** HtmlService: outputs and templates with Apps Script scriptlets (<? ?>, <?= ?>, <?!= ?>). */
import { escapeHtml } from '../../../src/core/html';
import { call } from './channel';

export class HtmlOutput {
  private title = '';
  private width: number | null = null;
  private height: number | null = null;
  constructor(private content: string) {}
  getContent(): string {
    return this.content;
  }
  setContent(content: string): HtmlOutput {
    this.content = content;
    return this;
  }
  append(text: string): HtmlOutput {
    this.content += text;
    return this;
  }
  appendUntrusted(text: string): HtmlOutput {
    this.content += escapeHtml(text);
    return this;
  }
  clear(): HtmlOutput {
    this.content = '';
    return this;
  }
  setTitle(title: string): HtmlOutput {
    this.title = title;
    return this;
  }
  getTitle(): string {
    return this.title;
  }
  setWidth(width: number): HtmlOutput {
    this.width = width;
    return this;
  }
  getWidth(): number | null {
    return this.width;
  }
  setHeight(height: number): HtmlOutput {
    this.height = height;
    return this;
  }
  getHeight(): number | null {
    return this.height;
  }
  setSandboxMode(_mode: string): HtmlOutput {
    return this;
  }
  setXFrameOptionsMode(_mode: string): HtmlOutput {
    return this;
  }
  addMetaTag(name: string, content: string): HtmlOutput {
    this.content = `<meta name="${escapeHtml(name)}" content="${escapeHtml(content)}">${this.content}`;
    return this;
  }
  setFaviconUrl(_url: string): HtmlOutput {
    return this;
  }
}

/** Compiles scriptlets into a function body: literal text, code, escaped and raw prints. */
function compileTemplate(source: string): string {
  let code = 'var __out = [];\n';
  const re = /<\?(!?=)?([\s\S]*?)\?>/g;
  let last = 0;
  for (let m = re.exec(source); m; m = re.exec(source)) {
    code += `__out.push(${JSON.stringify(source.slice(last, m.index))});\n`;
    if (m[1] === '=') code += `__out.push(__escape(${m[2]}));\n`;
    else if (m[1] === '!=') code += `__out.push(String(${m[2]}));\n`;
    else code += `${m[2]}\n`;
    last = re.lastIndex;
  }
  code += `__out.push(${JSON.stringify(source.slice(last))});\nreturn __out.join('');`;
  return code;
}

class HtmlTemplate {
  [key: string]: unknown;
  constructor(private readonly source: string) {}
  getRawContent(): string {
    return this.source;
  }
  evaluate(): HtmlOutput {
    const vars: Record<string, unknown> = {};
    for (const k of Object.keys(this)) if (k !== 'source') vars[k] = this[k];
    const body = `with (__vars) {\n${compileTemplate(this.source)}\n}`;
    // Scriptlets are the project's own template code, evaluated in the execution's context as Apps Script does.
    const fn = new Function('__vars', '__escape', body) as (v: unknown, e: typeof escapeHtml) => string;
    return new HtmlOutput(fn(vars, (x) => escapeHtml(x === undefined || x === null ? '' : String(x))));
  }
}

export function makeHtmlService() {
  return {
    createHtmlOutput: (html?: string) => new HtmlOutput(html ?? ''),
    createHtmlOutputFromFile: (name: string) => new HtmlOutput(call<string>('html', 'file', name)),
    createTemplate: (html: string) => new HtmlTemplate(html),
    createTemplateFromFile: (name: string) => new HtmlTemplate(call<string>('html', 'file', name)),
    SandboxMode: { IFRAME: 'IFRAME', NATIVE: 'NATIVE', EMULATED: 'EMULATED' },
    XFrameOptionsMode: { ALLOWALL: 'ALLOWALL', DEFAULT: 'DEFAULT' },
  };
}
