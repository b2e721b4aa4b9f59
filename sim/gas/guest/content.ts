/**
 * ContentService (developers.google.com/apps-script/reference/content): a TextOutput is built in the
 * execution and only read when the function returns, so no world call is needed. The runner receives
 * it as `{ $textOutput: { content, mimeType, fileName } }` (sim/gas/web-app.ts serves it).
 */
import { enumOf } from './spreadsheet';

const MIME_TYPES = ['ATOM', 'CSV', 'ICAL', 'JAVASCRIPT', 'JSON', 'RSS', 'TEXT', 'VCARD', 'XML'] as const;

export class TextOutput {
  private content: string;
  private mimeType = 'TEXT';
  private fileName: string | null = null;
  constructor(content?: string) {
    this.content = content === undefined ? '' : String(content);
  }
  append(added: string): TextOutput {
    this.content += String(added);
    return this;
  }
  clear(): TextOutput {
    this.content = '';
    return this;
  }
  downloadAsFile(name: string): TextOutput {
    this.fileName = String(name);
    return this;
  }
  getContent(): string {
    return this.content;
  }
  getFileName(): string | null {
    return this.fileName;
  }
  getMimeType(): string {
    return this.mimeType;
  }
  setContent(content: string): TextOutput {
    this.content = String(content);
    return this;
  }
  setMimeType(mimeType: string): TextOutput {
    if (!(MIME_TYPES as readonly string[]).includes(String(mimeType)))
      throw new Error(`Invalid argument: mimeType`);
    this.mimeType = String(mimeType);
    return this;
  }
  /** What crosses to the runner. */
  toWire(): { $textOutput: { content: string; mimeType: string; fileName: string | null } } {
    return { $textOutput: { content: this.content, mimeType: this.mimeType, fileName: this.fileName } };
  }
}

export function makeContentService() {
  return {
    MimeType: enumOf(MIME_TYPES),
    createTextOutput: (content?: string) => new TextOutput(content),
  };
}
