/** SpreadsheetApp on the world side: spreadsheet, sheet and range operations on plain refs. */
import { GAS_MESSAGES, GasError } from '../errors';
import { parseA1 } from '../lib/a1';
import { type CellValue, displayValue } from '../lib/coerce';
import { method, type ServiceContext, type ServiceTable } from './method';
import {
  type CellMeta,
  type ChartSpec,
  type ConditionalFormatSpec,
  forEachCell,
  type RangeRef,
  type SheetModel,
  type StyleKey,
  type ValidationSpec,
  type WriteOp,
} from './sheets-model';

const CELL_LIMIT = 50_000;

function book(ctx: ServiceContext) {
  return ctx.world.spreadsheet;
}

function sheetInfo(sheet: SheetModel) {
  return { id: sheet.id, name: sheet.name };
}

/** Resolves a sheet for reading: the caller's own buffered writes to it land first. */
function readSheet(ctx: ServiceContext, sh: number): SheetModel {
  book(ctx).beforeRead(ctx.exec.id, sh);
  return book(ctx).sheet(sh);
}

function checkRef(sheet: SheetModel, ref: RangeRef): RangeRef {
  if (ref.h < 1 || ref.w < 1) throw new GasError('The number of rows in the range must be at least 1.');
  if (ref.r < 1 || ref.c < 1 || ref.r + ref.h - 1 > sheet.maxRows || ref.c + ref.w - 1 > sheet.maxColumns) {
    throw new GasError(GAS_MESSAGES.outsideSheet);
  }
  return ref;
}

/**
 * `n` empty rows at index `at`, in pieces: one spread of 200,000 arguments overflows V8's stack
 * (found with a 200,000-row 台帳 whose 要確認 grew by as many rows).
 */
/** Big ranges take longer: charge the per-cell part of the latency model. */
function charge(ctx: ServiceContext, ref: RangeRef, kind: 'read' | 'write'): void {
  const perCell =
    kind === 'read' ? ctx.world.latency.sheetsReadPerCell : ctx.world.latency.sheetsWritePerCell;
  ctx.world.clock.advance(ref.h * ref.w * perCell);
  ctx.exec.counters.sheetsCells = (ctx.exec.counters.sheetsCells ?? 0) + ref.h * ref.w;
}

function grid<T>(ref: RangeRef, fn: (r: number, c: number) => T): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < ref.h; i++) {
    const row: T[] = [];
    for (let j = 0; j < ref.w; j++) row.push(fn(ref.r + i, ref.c + j));
    out.push(row);
  }
  return out;
}

function checkDimensions(ref: RangeRef, data: unknown): unknown[][] {
  if (!Array.isArray(data)) throw new GasError("The parameters (String) don't match the method signature.");
  if (data.length !== ref.h) throw new GasError(GAS_MESSAGES.rowsMismatch(data.length, ref.h));
  for (const row of data) {
    if (!Array.isArray(row))
      throw new GasError("The parameters (number[]) don't match the method signature.");
    if (row.length !== ref.w) throw new GasError(GAS_MESSAGES.columnsMismatch(row.length, ref.w));
  }
  return data as unknown[][];
}

/** Refuses the whole write when a cell is too long; whether a quote prefix counts is a switch. */
function checkCellLengths(ctx: ServiceContext, data: unknown[][]): void {
  const prefixCounts = book(ctx).cellLimitCountsApostrophe;
  for (const row of data) {
    for (const v of row) {
      if (typeof v !== 'string') continue;
      const length = !prefixCounts && v.startsWith("'") ? v.length - 1 : v.length;
      if (length > CELL_LIMIT) throw new GasError(GAS_MESSAGES.cellTooLong);
    }
  }
}

/** Accepts a full grid, or `{ fill: v }` to set every cell of the range to v. */
function expand<T>(ref: RangeRef, data: T[][] | { fill: T }): T[][] {
  if (Array.isArray(data)) return checkDimensions(ref, data) as T[][];
  return grid(ref, () => data.fill);
}

function write(ctx: ServiceContext, ref: RangeRef, op: WriteOp): void {
  const model = book(ctx);
  charge(ctx, ref, 'write');
  checkRef(model.sheet(ref.sh), ref);
  model.assertCanEdit(ctx.exec.user, ref);
  model.write(ctx.exec.id, op);
}

function writeSheet(ctx: ServiceContext, sh: number, op: WriteOp): void {
  book(ctx).sheet(sh);
  book(ctx).write(ctx.exec.id, op);
}

/** `n` empty rows at index `at`, without spreading them as arguments (200,000 rows overflow the stack). */
function insertEmptyRows(rows: unknown[], at: number, n: number): void {
  const tail = rows.splice(at);
  for (let i = 0; i < n; i++) rows.push(undefined);
  for (const r of tail) rows.push(r);
}

function dataRange(sheet: SheetModel): RangeRef {
  return { sh: sheet.id, r: 1, c: 1, h: Math.max(1, sheet.lastRow()), w: Math.max(1, sheet.lastColumn()) };
}

function resolveA1(ctx: ServiceContext, sh: number | null, a1: string): RangeRef {
  const p = parseA1(a1);
  const model = book(ctx);
  let sheet: SheetModel;
  if (p.sheetName !== undefined) {
    const found = model.sheets.find((s) => s.name === p.sheetName);
    if (!found) throw new GasError(GAS_MESSAGES.rangeNotFound);
    sheet = found;
  } else if (sh !== null) {
    sheet = model.sheet(sh);
  } else {
    sheet = model.sheets[0];
  }
  const ref = {
    sh: sheet.id,
    r: p.row,
    c: p.col,
    h: p.numRows ?? sheet.maxRows - p.row + 1,
    w: p.numCols ?? sheet.maxColumns - p.col + 1,
  };
  return checkRef(sheet, ref);
}

interface FindOptions {
  matchCase?: boolean;
  matchEntireCell?: boolean;
  useRegularExpression?: boolean;
  matchFormulaText?: boolean;
}

function find(ctx: ServiceContext, scope: RangeRef[] | null, text: string, opts: FindOptions): RangeRef[] {
  const model = book(ctx);
  const areas = scope ?? model.sheets.map((s) => dataRange(s));
  let test: (s: string) => boolean;
  if (opts.useRegularExpression) {
    const re = new RegExp(opts.matchEntireCell ? `^(?:${text})$` : text, opts.matchCase ? '' : 'i');
    test = (s) => re.test(s);
  } else {
    const needle = opts.matchCase ? text : text.toLowerCase();
    test = (s) => {
      const hay = opts.matchCase ? s : s.toLowerCase();
      return opts.matchEntireCell ? hay === needle : hay.includes(needle);
    };
  }
  const hits: RangeRef[] = [];
  for (const area of areas) {
    const sheet = readSheet(ctx, area.sh);
    forEachCell(area, (r, c) => {
      const meta = sheet.meta(r, c);
      const shown =
        opts.matchFormulaText && meta?.formula
          ? meta.formula
          : displayValue(sheet.value(r, c), meta?.numberFormat, model.timeZone);
      if (shown !== '' && test(shown)) hits.push({ sh: area.sh, r, c, h: 1, w: 1 });
    });
  }
  return hits;
}

export const SHEETS_SERVICE: ServiceTable = {
  // Spreadsheet
  info: method('other', (ctx) => {
    const m = book(ctx);
    return { id: m.id, name: m.name, url: m.url, timeZone: m.timeZone, owner: m.owner, editors: m.editors };
  }),
  flush: method('flush', (ctx) => book(ctx).commit(ctx.exec.id)),
  sheets: method('other', (ctx) => book(ctx).sheets.map(sheetInfo)),
  sheetByName: method('other', (ctx, name: string) => {
    const s = book(ctx).sheets.find((x) => x.name === name);
    return s ? sheetInfo(s) : null;
  }),
  sheetById: method('other', (ctx, id: number) => {
    const s = book(ctx).sheets.find((x) => x.id === id);
    return s ? sheetInfo(s) : null;
  }),
  insertSheet: method('write', (ctx, name: string | null, index: number | null) => {
    const model = book(ctx);
    let n = name;
    if (!n) {
      let i = model.sheets.length + 1;
      while (model.sheets.some((s) => s.name === `シート${i}`)) i++;
      n = `シート${i}`;
    }
    return sheetInfo(model.addSheet(n, index ?? undefined));
  }),
  copySheet: method('write', (ctx, sh: number) => {
    // A copy holds what the sheet holds now, the caller's own pending writes included.
    const source = readSheet(ctx, sh);
    const model = book(ctx);
    let name = `Copy of ${source.name}`;
    for (let i = 2; model.sheets.some((s) => s.name === name); i++) name = `Copy of ${source.name} ${i}`;
    return sheetInfo(model.copySheet(sh, name));
  }),
  deleteSheet: method('write', (ctx, sh: number) => {
    const model = book(ctx);
    if (model.sheets.length === 1) throw new GasError("You can't remove all the sheets in a document.");
    model.sheets = model.sheets.filter((s) => s.id !== sh);
  }),
  renameSheet: method('write', (ctx, sh: number, name: string) => {
    const model = book(ctx);
    if (model.sheets.some((s) => s.name === name && s.id !== sh))
      throw new GasError(GAS_MESSAGES.sheetExists(name));
    model.sheet(sh).name = name;
  }),
  sheetIndex: method('other', (ctx, sh: number) => book(ctx).sheets.findIndex((s) => s.id === sh) + 1),
  toast: method('other', (ctx, message: string, title: string, seconds: number) => {
    ctx.world.ui.record(ctx.exec, { type: 'toast', title, message, seconds });
  }),

  // Sheet
  lastRow: method('read', (ctx, sh: number) => readSheet(ctx, sh).lastRow()),
  lastColumn: method('read', (ctx, sh: number) => readSheet(ctx, sh).lastColumn()),
  maxRows: method('other', (ctx, sh: number) => book(ctx).sheet(sh).maxRows),
  maxColumns: method('other', (ctx, sh: number) => book(ctx).sheet(sh).maxColumns),
  range: method('other', (ctx, sh: number, r: number, c: number, h: number, w: number) =>
    checkRef(book(ctx).sheet(sh), { sh, r, c, h, w }),
  ),
  rangeA1: method('other', (ctx, sh: number | null, a1: string) => resolveA1(ctx, sh, a1)),
  // Sheet.getRangeList(a1Notations): every notation resolved on the sheet, as one call.
  rangeListA1: method('other', (ctx, sh: number, a1s: unknown) => {
    if (!Array.isArray(a1s) || a1s.length === 0)
      throw new GasError(
        "The parameters () don't match the method signature for SpreadsheetApp.Sheet.getRangeList.",
      );
    return a1s.map((a1) => resolveA1(ctx, sh, String(a1)));
  }),
  dataRange: method('read', (ctx, sh: number) => dataRange(readSheet(ctx, sh))),
  appendRow: method('write', (ctx, sh: number, values: unknown[]) => {
    if (!Array.isArray(values))
      throw new GasError("The parameters (String) don't match the method signature.");
    checkCellLengths(ctx, [values]);
    writeSheet(ctx, sh, { type: 'append', sh, values });
  }),
  insertRowsAfter: method('write', (ctx, sh: number, after: number, n: number) => {
    const sheet = readSheet(ctx, sh);
    if (after < 1 || after > sheet.maxRows) throw new GasError(GAS_MESSAGES.outsideSheet);
    insertEmptyRows(sheet.rows, after, n);
    sheet.maxRows += n;
  }),
  insertRowsBefore: method('write', (ctx, sh: number, before: number, n: number) => {
    const sheet = readSheet(ctx, sh);
    if (before < 1 || before > sheet.maxRows) throw new GasError(GAS_MESSAGES.outsideSheet);
    insertEmptyRows(sheet.rows, before - 1, n);
    sheet.maxRows += n;
  }),
  insertColumnsAfter: method('write', (ctx, sh: number, after: number, n: number) => {
    const sheet = readSheet(ctx, sh);
    for (const row of sheet.rows) {
      if (!row) continue;
      if (row.v.length > after) row.v.splice(after, 0, ...new Array(n).fill(''));
      if (row.meta) {
        const moved = new Map<number, CellMeta>();
        for (const [c, m] of row.meta) moved.set(c > after ? c + n : c, m);
        row.meta = moved;
      }
    }
    sheet.maxColumns += n;
  }),
  deleteRows: method('write', (ctx, sh: number, start: number, n: number) => {
    const sheet = readSheet(ctx, sh);
    if (start < 1 || start + n - 1 > sheet.maxRows) throw new GasError(GAS_MESSAGES.outsideSheet);
    sheet.rows.splice(start - 1, n);
    sheet.maxRows -= n;
  }),
  frozenRows: method('read', (ctx, sh: number) => readSheet(ctx, sh).frozenRows),
  frozenColumns: method('read', (ctx, sh: number) => readSheet(ctx, sh).frozenColumns),
  setFrozenRows: method('write', (ctx, sh: number, n: number) =>
    writeSheet(ctx, sh, { type: 'frozenRows', sh, n }),
  ),
  setFrozenColumns: method('write', (ctx, sh: number, n: number) =>
    writeSheet(ctx, sh, { type: 'frozenColumns', sh, n }),
  ),
  setProp: method('write', (ctx, sh: number, key: string, value: unknown) =>
    writeSheet(ctx, sh, { type: 'prop', sh, key, value }),
  ),
  getProp: method('read', (ctx, sh: number, key: string) => readSheet(ctx, sh).props[key] ?? null),
  setConditionalFormats: method('write', (ctx, sh: number, rules: ConditionalFormatSpec[]) =>
    writeSheet(ctx, sh, { type: 'conditionalFormats', sh, rules }),
  ),
  conditionalFormats: method('read', (ctx, sh: number) => readSheet(ctx, sh).conditionalFormats),
  setCharts: method('write', (ctx, sh: number, charts: ChartSpec[]) =>
    writeSheet(ctx, sh, { type: 'charts', sh, charts }),
  ),
  charts: method('read', (ctx, sh: number) => readSheet(ctx, sh).charts),
  protect: method('write', (ctx, sh: number, ref: RangeRef | null) => {
    const model = book(ctx);
    model.sheet(sh);
    return model.addProtection(sh, ref ?? undefined, ctx.exec.user);
  }),
  protections: method('read', (ctx, sh: number, type: 'RANGE' | 'SHEET') =>
    book(ctx).protections.filter((p) => p.sh === sh && (type === 'SHEET') === (p.ref === undefined)),
  ),
  updateProtection: method('write', (ctx, id: number, patch: Record<string, unknown>) => {
    const p = book(ctx).protections.find((x) => x.id === id);
    if (!p) throw new GasError('The protection has been removed.');
    Object.assign(p, patch);
    return p;
  }),
  removeProtection: method('write', (ctx, id: number) => {
    const model = book(ctx);
    model.protections = model.protections.filter((p) => p.id !== id);
  }),

  // Range reads
  getValues: method('read', (ctx, ref: RangeRef) => {
    const sheet = readSheet(ctx, ref.sh);
    charge(ctx, ref, 'read');
    return grid(ref, (r, c) => sheet.value(r, c));
  }),
  getDisplayValues: method('read', (ctx, ref: RangeRef) => {
    const sheet = readSheet(ctx, ref.sh);
    charge(ctx, ref, 'read');
    const tz = book(ctx).timeZone;
    return grid(ref, (r, c) => displayValue(sheet.value(r, c), sheet.meta(r, c)?.numberFormat, tz));
  }),
  getFormulas: method('read', (ctx, ref: RangeRef) => {
    const sheet = readSheet(ctx, ref.sh);
    return grid(ref, (r, c) => sheet.meta(r, c)?.formula ?? '');
  }),
  getNumberFormats: method('read', (ctx, ref: RangeRef) => {
    const sheet = readSheet(ctx, ref.sh);
    return grid(ref, (r, c) => sheet.meta(r, c)?.numberFormat ?? '0.###############');
  }),
  getValidations: method('read', (ctx, ref: RangeRef) => {
    const sheet = readSheet(ctx, ref.sh);
    return grid(ref, (r, c) => sheet.meta(r, c)?.validation ?? null);
  }),
  getStyles: method('read', (ctx, ref: RangeRef, key: StyleKey) => {
    const sheet = readSheet(ctx, ref.sh);
    return grid(ref, (r, c) => sheet.meta(r, c)?.[key] ?? null);
  }),

  // Range writes
  setValues: method('write', (ctx, ref: RangeRef, data: unknown[][] | { fill: unknown }) => {
    const values = expand(ref, data);
    checkCellLengths(ctx, values);
    write(ctx, ref, { type: 'values', ref, values });
  }),
  // RangeList.setValue(value) / clearContent(): every range of the list, as one call.
  setValueList: method('write', (ctx, refs: RangeRef[], value: unknown) => {
    checkCellLengths(ctx, [[value]]);
    for (const ref of refs) write(ctx, ref, { type: 'values', ref, values: grid(ref, () => value) });
  }),
  setFormulas: method('write', (ctx, ref: RangeRef, data: string[][] | { fill: string }) =>
    write(ctx, ref, {
      type: 'formulas',
      ref,
      formulas: expand(ref, data).map((row) => row.map((f) => String(f))),
    }),
  ),
  setNumberFormats: method('write', (ctx, ref: RangeRef, data: string[][] | { fill: string }) =>
    write(ctx, ref, { type: 'numberFormats', ref, formats: expand(ref, data) }),
  ),
  setValidations: method(
    'write',
    (ctx, ref: RangeRef, data: (ValidationSpec | null)[][] | { fill: ValidationSpec | null }) =>
      write(ctx, ref, { type: 'validations', ref, rules: expand(ref, data) }),
  ),
  setStyles: method('write', (ctx, ref: RangeRef, key: StyleKey, data: unknown[][] | { fill: unknown }) =>
    write(ctx, ref, { type: 'style', ref, key, values: expand(ref, data) }),
  ),
  // RangeList.clearFormat(): every range of the list, as one call.
  clearList: method(
    'write',
    (
      ctx,
      refs: RangeRef[],
      what: { contents: boolean; formats: boolean; validations: boolean; notes: boolean },
    ) => {
      for (const ref of refs) write(ctx, ref, { type: 'clear', ref, ...what });
    },
  ),
  clear: method(
    'write',
    (
      ctx,
      ref: RangeRef,
      what: { contents: boolean; formats: boolean; validations: boolean; notes: boolean },
    ) => write(ctx, ref, { type: 'clear', ref, ...what }),
  ),
  insertCheckboxes: method('write', (ctx, ref: RangeRef, checked: unknown, unchecked: unknown) =>
    write(ctx, ref, { type: 'checkboxes', ref, checked: checked ?? true, unchecked: unchecked ?? false }),
  ),
  sort: method('write', (ctx, ref: RangeRef, keys: { column: number; ascending: boolean }[]) =>
    write(ctx, ref, { type: 'sort', ref, keys }),
  ),
  find: method('read', (ctx, scope: RangeRef[] | null, text: string, opts: FindOptions) =>
    find(ctx, scope, text, opts),
  ),
  replaceAll: method(
    'write',
    (ctx, scope: RangeRef[] | null, text: string, replacement: string, opts: FindOptions) => {
      const hits = find(ctx, scope, text, opts);
      const model = book(ctx);
      for (const ref of hits) {
        const sheet = model.sheet(ref.sh);
        const current = String(sheet.value(ref.r, ref.c) as CellValue);
        const pattern = opts.useRegularExpression ? new RegExp(text, opts.matchCase ? 'g' : 'gi') : text;
        const next =
          typeof pattern === 'string'
            ? current.split(pattern).join(replacement)
            : current.replace(pattern, replacement);
        write(ctx, ref, { type: 'values', ref, values: [[next]] });
      }
      return hits.length;
    },
  ),
};
