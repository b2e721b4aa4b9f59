/** Logger and console, captured per execution by the world. */
import { call } from './channel';

function show(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof Error) return String(v.stack ?? v);
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

function format(args: unknown[]): string {
  if (typeof args[0] === 'string' && args.length > 1 && /%s/.test(args[0])) {
    let i = 1;
    return args[0].replace(/%s/g, () => show(args[i++]));
  }
  return args.map(show).join(' ');
}

export function makeLogger() {
  const lines: string[] = [];
  return {
    log: (...args: unknown[]) => {
      const text = format(args);
      lines.push(text);
      call('log', 'write', 'log', text);
    },
    getLog: () => lines.join('\n'),
    clear: () => {
      lines.length = 0;
    },
  };
}

export function makeConsole() {
  const at =
    (level: string) =>
    (...args: unknown[]) => {
      call('log', 'write', level, format(args));
    };
  return { log: at('log'), info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') };
}
