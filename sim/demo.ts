/**
 * `npm start`: the whole job as far as it is built, offline. Starts the fake MF on 127.0.0.1,
 * loads the built bundle (dist/) into the Apps Script emulator, and runs the entry points by name
 * as a person and the platform would, printing what each did.
 */
import { Emulator, type ExecutionResult } from './gas/index';
import { FakeMf, TEST_API_KEY } from './mf/fake-mf';
import { TEST_OFFICE_CODE } from './mf/seed';
import { spawnFakeMf } from './mf/spawn';

const OWNER = 'owner@example.com';

function line(text = ''): void {
  process.stdout.write(`${text}\n`);
}

function report(title: string, r: ExecutionResult): void {
  const c = r.counters;
  line(`▶ ${title} — ${r.status === 'ok' ? '成功' : `失敗 (${r.error?.message})`}`);
  line(
    `  Sheets 読み取り ${c.sheetsReads} 回 / 書き込み ${c.sheetsWrites} 回 / flush ${c.flushes} 回 / UrlFetch ${c.urlFetches} 回, ` +
      `所要 ${((r.endedAt - r.startedAt) / 1000).toFixed(1)} 秒 (仮想時間)`,
  );
  if (r.internalErrors.length > 0) throw new Error(`emulator error: ${r.internalErrors.join('\n')}`);
}

async function main(): Promise<void> {
  const emu = new Emulator({ bundleDir: 'dist', owner: OWNER });
  // Same seed as the server: lets the demo describe the data the server holds.
  const mf = new FakeMf({ seed: 1 });
  const server = await spawnFakeMf({ seed: 1 });
  try {
    // The script talks to the fake MF over real HTTP on loopback, configured as a user would (DESIGN §7).
    emu.world.fetch.allowLoopback = true;
    for (const [k, v] of Object.entries({
      MF_API_BASE_URL: server.url,
      MF_AUTH_BASE_URL: server.url,
      MF_API_KEY: TEST_API_KEY,
      MF_OFFICE_CODE: TEST_OFFICE_CODE,
    })) {
      emu.world.properties.script.set(k, v);
    }
    const pending = mf.transactions().filter((t) => t.journalizing_status === 'none').length;
    line('kicho (記帳) — ローカル実行 / local run');
    line(`偽MF API: ${server.url} (未仕訳明細 ${pending} 件)`);
    line(`スプレッドシート: 「${emu.world.spreadsheet.name}」 所有者 ${OWNER}`);
    line();

    const open = emu.openSpreadsheet(OWNER);
    report('スプレッドシートを開く (onOpen)', open);
    for (const menu of emu.world.ui.menusOf(OWNER)) {
      line(`  メニュー「${menu.title}」: ${menu.items.map((i) => `${i.label} → ${i.handler}()`).join(', ')}`);
    }
    line();

    for (const attempt of ['1 回目', '2 回目']) {
      const r = emu.run('setup', { kind: 'menu', user: OWNER });
      report(`メニュー「初期設定」 ${attempt} (setup)`, r);
      for (const m of (r.value as { messages: string[] }).messages) line(`  ${m}`);
      line();
    }

    line('シート:');
    for (const sheet of emu.world.spreadsheet.sheets) {
      const headers: unknown[] = [];
      for (let c = 1; c <= sheet.lastColumn(); c++) headers.push(sheet.value(1, c));
      line(`  ${sheet.name.padEnd(6, '　')} ${sheet.lastRow()} 行  ${headers.join(' | ')}`);
    }
    line();
    line('ログ:');
    const log = emu.world.spreadsheet.sheets.find((s) => s.name === 'ログ');
    for (let r = 2; log && r <= log.lastRow(); r++) {
      line(`  ${[1, 2, 3, 4, 5, 7].map((c) => log.value(r, c)).join('  ')}`);
    }
    line();
    line('次の段階 (issue 3 以降): 明細の取込・判定・登録・照合をこの流れに追加します。');
  } finally {
    await server.close();
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
