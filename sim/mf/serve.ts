// CLI: `tsx sim/mf/serve.ts [--port N] [--seed N] [--fault KIND[:TIMES] …] [--receivables] [--duplicates]` starts the fake MF API on
// 127.0.0.1 until Ctrl-C. `--fault commit-then-timeout:2` makes the next two journal creations commit and
// then time out, so a demo shows what kicho does with an unknown outcome. `--duplicates` plants the
// duplicates other parties left in the books (seed-duplicates.ts) for 重複点検.

import { parseArgs } from 'node:util';
import { FakeMf, TEST_API_KEY, TEST_CLIENT_ID, TEST_CLIENT_SECRET } from './fake-mf';
import type { FaultKind } from './faults';
import { TEST_OFFICE_CODE } from './seed';
import { plantDemoDuplicates } from './seed-duplicates';
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
    options: {
      port: { type: 'string' },
      seed: { type: 'string' },
      fault: { type: 'string', multiple: true },
      receivables: { type: 'boolean' },
      duplicates: { type: 'boolean' },
      // invoice_kind values a write takes (issue 27): document (default) or mcp (70/50/30 too).
      'invoice-kinds': { type: 'string' },
      // Adds a 2026-10-15 payment to 合同会社鈴木デザイン (not a registered issuer, the demo's 70 % journal)
      // and a 2026-10-20 electricity bill (a registered issuer's 登録番号 in MF's 取引先).
      'invoice-demo': { type: 'boolean' },
    },
    strict: true,
  });
  const port = integerOption(values.port, 'port', 0);
  const seed = integerOption(values.seed, 'seed', 1);
  const kinds = values['invoice-kinds'];
  if (kinds !== undefined && kinds !== 'document' && kinds !== 'mcp')
    throw new Error(`--invoice-kinds must be document or mcp, not ${kinds}`);
  const mf = new FakeMf({
    seed,
    receivables: values.receivables === true,
    ...(kinds ? { invoiceKindsOnWrite: kinds } : {}),
  });
  if (values.duplicates) plantDemoDuplicates(mf);
  if (values['invoice-demo'])
    mf.addTransactions([
      { date: '2026-10-15', value: 165_000, side: 'EXPENSE', content: 'ﾌﾘｺﾐ ﾄﾞ)ｽｽﾞｷﾃﾞｻﾞｲﾝ' },
      { date: '2026-10-20', value: 13_210, side: 'EXPENSE', content: 'ﾃﾞﾝｷﾀﾞｲ' },
    ]);
  for (const spec of values.fault ?? []) {
    const [kind, times] = spec.split(':');
    // Faults from the CLI hit journal creation, where an unknown outcome matters.
    mf.injectFault({
      kind: kind as FaultKind,
      times: integerOption(times, 'fault', 1),
      match: { method: 'POST', path: /^\/api\/v3\/(transactions\/journalize|journals)$/ },
    });
  }
  const running = await serveFakeMf(mf, { port });
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
