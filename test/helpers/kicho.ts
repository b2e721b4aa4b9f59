/**
 * A whole kicho world for scenario tests: the built bundle in the emulator, the fake MF routed
 * in-process for both MF hosts, API-key mode configured in script properties, setup() done.
 */
import { Emulator, type ExecutionResult } from '../../sim/gas/index';
import { FakeMf, type FakeMfOptions, TEST_API_KEY } from '../../sim/mf/fake-mf';
import { TEST_OFFICE_CODE } from '../../sim/mf/seed';
import { DIST } from './emulator';

export const OWNER = 'owner@example.com';

export interface KichoWorld {
  emu: Emulator;
  mf: FakeMf;
  run(
    name: string,
    options?: { user?: string; kind?: 'menu' | 'trigger'; args?: unknown[] },
  ): ExecutionResult;
  /** 台帳 data rows as records keyed by header. */
  ledger(): Record<string, unknown>[];
  /** Sets a 設定 value (as a person would type it). */
  setSetting(item: string, value: string): void;
  /** Appends ルール rows (records keyed by header), as a person would. */
  addRules(rules: Record<string, unknown>[]): void;
  /** Sets a cell of the 台帳 row holding `key`, as a person would. */
  edit(key: string, header: string, value: unknown): void;
}

function sheet(emu: Emulator, name: string) {
  const s = emu.world.spreadsheet.sheets.find((x) => x.name === name);
  if (!s) throw new Error(`no sheet ${name}`);
  return s;
}

function headerCols(emu: Emulator, name: string): Map<string, number> {
  const s = sheet(emu, name);
  const cols = new Map<string, number>();
  for (let c = 1; c <= s.lastColumn(); c++) cols.set(String(s.value(1, c)), c);
  return cols;
}

export function records(emu: Emulator, name: string): Record<string, unknown>[] {
  const s = sheet(emu, name);
  const cols = headerCols(emu, name);
  const out: Record<string, unknown>[] = [];
  for (let r = 2; r <= s.lastRow(); r++) {
    const rec: Record<string, unknown> = {};
    for (const [h, c] of cols) rec[h] = s.value(r, c);
    out.push(rec);
  }
  return out;
}

export function kichoWorld(options: FakeMfOptions & { window?: [string, string] } = {}): KichoWorld {
  const emu = new Emulator({ bundleDir: DIST, owner: OWNER, start: '2026-11-30T09:00:00+09:00' });
  const mf = new FakeMf({ seed: 1, ...options, now: () => emu.world.clock.now() });
  for (const host of ['api-accounting.moneyforward.com', 'api.biz.moneyforward.com']) {
    emu.world.fetch.route(host, (req) => mf.handle(req));
  }
  emu.world.properties.script.set('MF_API_KEY', TEST_API_KEY);
  emu.world.properties.script.set('MF_OFFICE_CODE', TEST_OFFICE_CODE);
  const world: KichoWorld = {
    emu,
    mf,
    run: (name, o = {}) => emu.run(name, { kind: o.kind ?? 'menu', user: o.user ?? OWNER, args: o.args }),
    ledger: () => records(emu, '台帳'),
    setSetting(item, value) {
      const s = sheet(emu, '設定');
      for (let r = 2; r <= s.lastRow(); r++) if (s.value(r, 1) === item) s.setValue(r, 2, value);
    },
    addRules(rules) {
      const s = sheet(emu, 'ルール');
      const cols = headerCols(emu, 'ルール');
      for (const rule of rules) {
        const r = s.lastRow() + 1;
        for (const [h, v] of Object.entries(rule)) {
          const c = cols.get(h);
          if (c === undefined) throw new Error(`no rule header ${h}`);
          s.setValue(r, c, v as never);
        }
      }
    },
    edit(key, header, value) {
      const s = sheet(emu, '台帳');
      const cols = headerCols(emu, '台帳');
      const keyCol = cols.get('キー') as number;
      for (let r = 2; r <= s.lastRow(); r++) {
        if (s.value(r, keyCol) === key) {
          s.setValue(r, cols.get(header) as number, value as never);
          return;
        }
      }
      throw new Error(`no row ${key}`);
    },
  };
  const setup = world.run('setup');
  if (setup.status !== 'ok') throw new Error(`setup failed: ${JSON.stringify(setup.error)}`);
  const [start, end] = options.window ?? ['2026-01-01', '2026-06-30'];
  world.setSetting('取込開始日', start);
  world.setSetting('取込終了日', end);
  return world;
}

/** A rule set that covers most seeded lines, auto-approving them. */
export const EXAMPLE_RULES: Record<string, unknown>[] = [
  {
    優先度: 10,
    一致方法: '部分一致',
    キーワード: 'アマゾン',
    勘定科目: '消耗品費',
    税区分: '課税仕入 10%',
    自動承認: 'はい',
    有効: true,
  },
  {
    優先度: 20,
    一致方法: '部分一致',
    キーワード: 'タクシー',
    勘定科目: '旅費交通費',
    税区分: '課税仕入 10%',
    自動承認: 'はい',
    有効: true,
  },
  {
    優先度: 30,
    一致方法: '前方一致',
    キーワード: 'JR',
    勘定科目: '旅費交通費',
    税区分: '課税仕入 10%',
    自動承認: 'はい',
    有効: true,
  },
  {
    優先度: 40,
    一致方法: '部分一致',
    キーワード: 'テスウリヨウ',
    勘定科目: '支払手数料',
    税区分: '課税仕入 10%',
    自動承認: 'はい',
    有効: true,
  },
  {
    優先度: 50,
    一致方法: '部分一致',
    キーワード: 'スターバックス',
    勘定科目: '会議費',
    税区分: '課税仕入 10%',
    自動承認: 'はい',
    有効: true,
  },
  {
    優先度: 60,
    一致方法: '前方一致',
    キーワード: 'フリコミ',
    入出金: '入金',
    勘定科目: '売掛金',
    自動承認: 'いいえ',
    有効: true,
  },
];
