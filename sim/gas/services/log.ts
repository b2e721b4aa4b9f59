/** Logger and console output, captured per execution (free: not a billed service call). */
import { method, type ServiceTable } from './method';

export const LOG_SERVICE: ServiceTable = {
  write: method('free', (ctx, level: string, text: string) => {
    ctx.exec.logs.push(level === 'log' ? text : `[${level}] ${text}`);
  }),
};
