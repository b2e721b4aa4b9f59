/** HtmlService: the bundle's *.html files, read as Apps Script serves them from the project. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { GasError } from '../errors';
import { method, type ServiceTable } from './method';

export const HTML_SERVICE: ServiceTable = {
  file: method('other', (ctx, name: string) => {
    const base = path.join(ctx.world.bundleDir, name);
    const file = existsSync(`${base}.html`) ? `${base}.html` : base;
    if (!name || !existsSync(file) || !file.endsWith('.html'))
      throw new GasError(`No HTML file named ${name} was found.`);
    return readFileSync(file, 'utf8');
  }),
};
