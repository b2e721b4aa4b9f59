// The fake MF in a child process. The emulator's UrlFetchApp blocks its thread while a request is in
// flight (Apps Script is synchronous), so a server it calls over HTTP must not share that thread.

import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const serveScript = path.join(path.dirname(fileURLToPath(import.meta.url)), 'serve.ts');

export interface SpawnedFakeMf {
  url: string;
  close(): Promise<void>;
}

/** Starts `sim/mf/serve.ts` on a free loopback port and resolves once it has printed its URL line. */
export function spawnFakeMf(
  options: {
    seed?: number;
    faults?: string[];
    receivables?: boolean;
    duplicates?: boolean;
    invoiceKinds?: 'document' | 'mcp';
    invoiceDemo?: boolean;
  } = {},
): Promise<SpawnedFakeMf> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      serveScript,
      '--port',
      '0',
      '--seed',
      String(options.seed ?? 1),
      ...(options.faults ?? []).flatMap((f) => ['--fault', f]),
      ...(options.receivables ? ['--receivables'] : []),
      ...(options.duplicates ? ['--duplicates'] : []),
      ...(options.invoiceKinds ? ['--invoice-kinds', options.invoiceKinds] : []),
      ...(options.invoiceDemo ? ['--invoice-demo'] : []),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  // Recorded from the start, so close() also works when the child has already gone.
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    await exited;
  };
  return new Promise((resolve, reject) => {
    let out = '';
    let started = false;
    exited.then((code) => {
      if (!started) reject(new Error(`fake MF did not start: exited with ${code}\n${out}`));
    });
    child.once('error', (e) => reject(e));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      // Wait for the whole line: a chunk may end in the middle of the port number.
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+) /.exec(out);
      if (!m || started) return;
      started = true;
      resolve({ url: m[1], close });
    });
  });
}
