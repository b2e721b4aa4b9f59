// The fake MF in a child process. The emulator's UrlFetchApp blocks its thread while a request is in
// flight (Apps Script is synchronous), so a server it calls over HTTP must not share that thread.

import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const serveScript = path.join(path.dirname(fileURLToPath(import.meta.url)), 'serve.ts');

export interface SpawnedFakeMf {
  url: string;
  close(): Promise<void>;
}

/** Starts `sim/mf/serve.ts` on a free loopback port and resolves once it prints its URL. */
export function spawnFakeMf(options: { seed?: number } = {}): Promise<SpawnedFakeMf> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', serveScript, '--port', '0', '--seed', String(options.seed ?? 1)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    const fail = (why: string) => {
      child.kill();
      reject(new Error(`fake MF did not start: ${why}`));
    };
    child.once('exit', (code) => fail(`exited with ${code}`));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (!m) return;
      child.removeAllListeners('exit');
      resolve({
        url: m[1],
        close: () =>
          new Promise<void>((done) => {
            child.once('exit', () => done());
            child.kill('SIGINT');
          }),
      });
    });
  });
}
