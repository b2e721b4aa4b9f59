// CLI: `tsx sim/mf/serve.ts [--port N] [--seed N]` starts the fake MF API on 127.0.0.1 until Ctrl-C.

import { parseArgs } from 'node:util';
import { FakeMf, TEST_API_KEY, TEST_CLIENT_ID, TEST_CLIENT_SECRET } from './fake-mf';
import { TEST_OFFICE_CODE } from './seed';
import { serveFakeMf } from './server';

function integerOption(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new Error(`--${name} must be a non-negative integer, got ${value}`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { port: { type: 'string' }, seed: { type: 'string' } },
    strict: true,
  });
  const port = integerOption(values.port, 'port', 0);
  const seed = integerOption(values.seed, 'seed', 1);
  const running = await serveFakeMf(new FakeMf({ seed }), { port });
  console.log(`fake MF API listening on ${running.url} (seed ${seed})`);
  console.log(`  MF_API_BASE_URL=${running.url}`);
  console.log(`  MF_AUTH_BASE_URL=${running.url}`);
  console.log(`  MF_API_KEY=${TEST_API_KEY}`);
  console.log(`  MF_OFFICE_CODE=${TEST_OFFICE_CODE}`);
  console.log(`  OAuth client: ${TEST_CLIENT_ID} / ${TEST_CLIENT_SECRET}`);
  console.log('Ctrl-C stops it.');
  process.once('SIGINT', () => {
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
