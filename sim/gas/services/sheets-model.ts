/**
 * The spreadsheet as the world holds it, and per-execution write buffering.
 * Writes are validated when called (so errors surface at the call, as in Apps Script) and applied
 * at commit time: flush(), a read of the same sheet by the same execution, or normal completion.
 */

import { GAS_MESSAGES, GasError } from '../errors';
import { CHART_IDS_PER_SHEET } from '../lib/charts';
import { type CellValue, coerceUserEntered, type PlainTextApostrophe } from '../lib/coerce';

/** A rectangle on one sheet, 1-based. The guest holds these and sends them back. */
export interface RangeRef {
  sh: number;
  r: number;
  c: number;
  h: number;
  w: number;
}

export interface ValidationSpec {
  criteria: string;
  values: unknown[];
  allowInvalid: boolean;
  helpText?: string;
}

/** Per-cell metadata other than the value. */
export interface CellMeta {
  formula?: string;
  numberFormat?: string;
  validation?: ValidationSpec;
  note?: string;
  background?: string;
  fontWeight?: string;
  fontColor?: string;
  fontSize?: number;
  fontStyle?: string;
  horizontalAlignment?: string;
  verticalAlignment?: string;
  wrap?: boolean;
}

export type StyleKey =
  | 'note'
  | 'background'
  | 'fontWeight'
  | 'fontColor'
  | 'fontSize'
  | 'fontStyle'
  | 'horizontalAlignment'
  | 'verticalAlignment'
  | 'wrap';

interface Row {
  v: CellValue[];
  meta?: Map<number, CellMeta>;
}

export interface ConditionalFormatSpec {
  ranges: RangeRef[];
  condition: { type: string; values: unknown[] };
  format: { background?: string; fontColor?: string; bold?: boolean; italic?: boolean };
}

/** An embedded chart: its type, data ranges, anchor cell and options (drawing is not modelled). */
export interface ChartSpec {
  /** Unique in the spreadsheet; 0 until inserted. */
  id: number;
  type: string;
  ranges: RangeRef[];
  position: { row: number; column: number; offsetX: number; offsetY: number };
  options: Record<string, unknown>;
}

export interface ProtectionSpec {
  id: number;
  sh: number;
  /** Absent for a whole-sheet protection. */
  ref?: RangeRef;
  description: string;
  warningOnly: boolean;
  editors: string[];
  domainEdit: boolean;
}

export class SheetModel {
  rows: (Row | undefined)[] = [];
  maxRows = 1000;
  maxColumns = 26;
  frozenRows = 0;
  frozenColumns = 0;
  conditionalFormats: ConditionalFormatSpec[] = [];
  charts: ChartSpec[] = [];
  /** Column widths, hidden columns, tab colour …: stored so tests can read them back. */
  props: Record<string, unknown> = {};

  constructor(
    readonly id: number,
    public name: string,
  ) {}

  lastRow(): number {
    for (let r = this.rows.length; r >= 1; r--) {
      const row = this.rows[r - 1];
      if (row && rowHasContent(row)) return r;
    }
    return 0;
  }

  lastColumn(): number {
    let last = 0;
    for (const row of this.rows) {
      if (!row) continue;
      for (let c = row.v.length; c > last; c--) {
        if (row.v[c - 1] !== '' || row.meta?.get(c)?.formula) {
          last = c;
          break;
        }
      }
    }
    return last;
  }

  value(r: number, c: number): CellValue {
    return this.rows[r - 1]?.v[c - 1] ?? '';
  }

  meta(r: number, c: number): CellMeta | undefined {
    return this.rows[r - 1]?.meta?.get(c);
  }

  private row(r: number): Row {
    let row = this.rows[r - 1];
    if (!row) {
      row = { v: [] };
      this.rows[r - 1] = row;
    }
    return row;
  }

  setValue(r: number, c: number, value: CellValue): void {
    const row = this.row(r);
    while (row.v.length < c - 1) row.v.push('');
    row.v[c - 1] = value;
  }

  updateMeta(r: number, c: number, patch: Partial<CellMeta>): void {
    const row = this.row(r);
    if (!row.meta) row.meta = new Map();
    const current = row.meta.get(c) ?? {};
    const next: CellMeta = { ...current, ...patch };
    for (const k of Object.keys(next) as (keyof CellMeta)[]) if (next[k] === undefined) delete next[k];
    if (Object.keys(next).length === 0) row.meta.delete(c);
    else row.meta.set(c, next);
  }
}

function rowHasContent(row: Row): boolean {
  if (row.v.some((v) => v !== '')) return true;
  if (row.meta) for (const m of row.meta.values()) if (m.formula) return true;
  return false;
}

/** A buffered write: validated at call time, applied at commit. */
export type WriteOp =
  | { type: 'values'; ref: RangeRef; values: unknown[][] }
  | { type: 'formulas'; ref: RangeRef; formulas: string[][] }
  | { type: 'append'; sh: number; values: unknown[] }
  | { type: 'numberFormats'; ref: RangeRef; formats: string[][] }
  | { type: 'validations'; ref: RangeRef; rules: (ValidationSpec | null)[][] }
  | { type: 'style'; ref: RangeRef; key: StyleKey; values: unknown[][] }
  | {
      type: 'clear';
      ref: RangeRef;
      contents: boolean;
      formats: boolean;
      validations: boolean;
      notes: boolean;
    }
  | { type: 'checkboxes'; ref: RangeRef; checked: unknown; unchecked: unknown }
  | { type: 'sort'; ref: RangeRef; keys: { column: number; ascending: boolean }[] }
  | { type: 'frozenRows'; sh: number; n: number }
  | { type: 'frozenColumns'; sh: number; n: number }
  | { type: 'prop'; sh: number; key: string; value: unknown }
  | { type: 'conditionalFormats'; sh: number; rules: ConditionalFormatSpec[] }
  | { type: 'charts'; sh: number; charts: ChartSpec[] };

export interface SpreadsheetInit {
  name: string;
  timeZone: string;
  owner: string;
  editors: string[];
  plainTextStopsFormulas: boolean;
  plainTextApostrophe: PlainTextApostrophe;
  cellLimitCountsApostrophe: boolean;
}

export class SpreadsheetModel {
  readonly id = '1kichoSIMsheetIdAbCdEfGhIjKlMnOpQrStUvWxYz01';
  name: string;
  readonly timeZone: string;
  readonly owner: string;
  readonly editors: string[];
  plainTextStopsFormulas: boolean;
  plainTextApostrophe: PlainTextApostrophe;
  /** Whether a leading apostrophe counts toward the 50,000-character cell limit (undocumented). */
  cellLimitCountsApostrophe: boolean;
  /** 'kept' only in a test's counterfactual world (coerce.ts CoerceOptions.automaticApostrophe). */
  automaticApostrophe: PlainTextApostrophe = 'stripped';
  writeThrough = false;
  sheets: SheetModel[] = [];
  protections: ProtectionSpec[] = [];
  private pending = new Map<number, WriteOp[]>();
  private nextSheetId = 0;
  private nextProtectionId = 1;

  constructor(init: SpreadsheetInit) {
    this.name = init.name;
    this.timeZone = init.timeZone;
    this.owner = init.owner;
    this.editors = init.editors;
    this.plainTextStopsFormulas = init.plainTextStopsFormulas;
    this.plainTextApostrophe = init.plainTextApostrophe;
    this.cellLimitCountsApostrophe = init.cellLimitCountsApostrophe;
    this.addSheet('シート1');
  }

  get url(): string {
    return `https://docs.google.com/spreadsheets/d/${this.id}/edit`;
  }

  addSheet(name: string, index?: number): SheetModel {
    if (this.sheets.some((s) => s.name === name)) throw new GasError(GAS_MESSAGES.sheetExists(name));
    const sheet = new SheetModel(this.nextSheetId, name);
    this.nextSheetId = this.nextSheetId === 0 ? 1_000_001 : this.nextSheetId + 7_919;
    const at = index === undefined ? this.sheets.length : Math.max(0, Math.min(index, this.sheets.length));
    this.sheets.splice(at, 0, sheet);
    return sheet;
  }

  /** Sheet.copyTo(this spreadsheet): values, formats, rules and layout, as a new sheet after the last. */
  copySheet(id: number, name: string): SheetModel {
    const source = this.sheet(id);
    const copy = this.addSheet(name);
    copy.rows = structuredClone(source.rows);
    copy.maxRows = source.maxRows;
    copy.maxColumns = source.maxColumns;
    copy.frozenRows = source.frozenRows;
    copy.frozenColumns = source.frozenColumns;
    copy.conditionalFormats = structuredClone(source.conditionalFormats).map((rule) => ({
      ...rule,
      ranges: rule.ranges.map((r) => ({ ...r, sh: copy.id })),
    }));
    copy.charts = structuredClone(source.charts).map((chart, i) => ({
      ...chart,
      id: copy.id * CHART_IDS_PER_SHEET + i + 1,
      ranges: chart.ranges.map((r) => ({ ...r, sh: copy.id })),
    }));
    copy.props = structuredClone(source.props);
    return copy;
  }

  sheet(id: number): SheetModel {
    const sheet = this.sheets.find((s) => s.id === id);
    if (!sheet) throw new GasError('The sheet has been deleted or is no longer available.');
    return sheet;
  }

  /** Stores `op` for the execution (or applies it at once in write-through mode). */
  write(execId: number, op: WriteOp): void {
    if (this.writeThrough) {
      this.apply(op);
      return;
    }
    let list = this.pending.get(execId);
    if (!list) {
      list = [];
      this.pending.set(execId, list);
    }
    list.push(op);
  }

  /** Called before an execution reads sheet `sh`: its own pending writes to that sheet land first. */
  beforeRead(execId: number, sh: number): void {
    const list = this.pending.get(execId);
    if (!list || list.length === 0) return;
    const mine = list.filter((op) => opSheet(op) === sh);
    if (mine.length === 0) return;
    this.pending.set(
      execId,
      list.filter((op) => opSheet(op) !== sh),
    );
    for (const op of mine) this.apply(op);
  }

  hasPending(execId: number): boolean {
    return (this.pending.get(execId)?.length ?? 0) > 0;
  }

  commit(execId: number): void {
    const list = this.pending.get(execId);
    this.pending.delete(execId);
    if (list) for (const op of list) this.apply(op);
  }

  discard(execId: number): void {
    this.pending.delete(execId);
  }

  /** Throws the real message when `user` may not edit `ref` (full protection, not an editor). */
  assertCanEdit(user: string, ref: RangeRef): void {
    if (user === this.owner) return;
    for (const p of this.protections) {
      if (p.sh !== ref.sh || p.warningOnly) continue;
      if (p.ref && !overlaps(p.ref, ref)) continue;
      if (!p.editors.includes(user)) throw new GasError(GAS_MESSAGES.protectedCell);
    }
  }

  addProtection(sh: number, ref: RangeRef | undefined, user: string): ProtectionSpec {
    const editors = [...new Set([this.owner, user])];
    const spec: ProtectionSpec = {
      id: this.nextProtectionId++,
      sh,
      ref,
      description: '',
      warningOnly: false,
      editors,
      domainEdit: false,
    };
    this.protections.push(spec);
    return spec;
  }

  coerce(input: unknown, sheet: SheetModel, r: number, c: number) {
    return coerceUserEntered(input, {
      numberFormat: sheet.meta(r, c)?.numberFormat,
      timeZone: this.timeZone,
      plainTextStopsFormulas: this.plainTextStopsFormulas,
      plainTextApostrophe: this.plainTextApostrophe,
      cellLimitCountsApostrophe: this.cellLimitCountsApostrophe,
      automaticApostrophe: this.automaticApostrophe,
    });
  }

  private apply(op: WriteOp): void {
    const sheet = this.sheets.find((s) => s.id === opSheet(op));
    if (!sheet) return; // the sheet was deleted before the buffered write landed
    switch (op.type) {
      case 'values':
        forEachCell(op.ref, (r, c, i, j) => this.storeValue(sheet, r, c, op.values[i][j]));
        break;
      case 'formulas':
        forEachCell(op.ref, (r, c, i, j) => {
          const f = op.formulas[i][j];
          this.storeValue(sheet, r, c, f === '' ? '' : f.startsWith('=') ? f : `=${f}`);
        });
        break;
      case 'append': {
        const r = sheet.lastRow() + 1;
        if (r > sheet.maxRows) sheet.maxRows = r;
        if (op.values.length > sheet.maxColumns) sheet.maxColumns = op.values.length;
        for (const [j, v] of op.values.entries()) this.storeValue(sheet, r, j + 1, v);
        break;
      }
      case 'numberFormats':
        forEachCell(op.ref, (r, c, i, j) =>
          sheet.updateMeta(r, c, { numberFormat: op.formats[i][j] || undefined }),
        );
        break;
      case 'validations':
        forEachCell(op.ref, (r, c, i, j) =>
          sheet.updateMeta(r, c, { validation: op.rules[i][j] ?? undefined }),
        );
        break;
      case 'style':
        forEachCell(op.ref, (r, c, i, j) => {
          const v = op.values[i][j];
          sheet.updateMeta(r, c, { [op.key]: v === null || v === '' ? undefined : v });
        });
        break;
      case 'clear':
        forEachCell(op.ref, (r, c) => {
          if (op.contents) {
            sheet.setValue(r, c, '');
            sheet.updateMeta(r, c, { formula: undefined });
          }
          if (op.formats)
            sheet.updateMeta(r, c, {
              numberFormat: undefined,
              background: undefined,
              fontWeight: undefined,
              fontColor: undefined,
              fontSize: undefined,
              fontStyle: undefined,
              horizontalAlignment: undefined,
              verticalAlignment: undefined,
              wrap: undefined,
            });
          if (op.validations) sheet.updateMeta(r, c, { validation: undefined });
          if (op.notes) sheet.updateMeta(r, c, { note: undefined });
        });
        break;
      case 'checkboxes':
        forEachCell(op.ref, (r, c) => {
          const values = op.checked === true && op.unchecked === false ? [] : [op.checked, op.unchecked];
          sheet.updateMeta(r, c, { validation: { criteria: 'CHECKBOX', values, allowInvalid: false } });
          sheet.setValue(r, c, op.checked === true ? false : (op.unchecked as CellValue));
          sheet.updateMeta(r, c, { formula: undefined });
        });
        break;
      case 'sort':
        sortRows(sheet, op.ref, op.keys);
        break;
      case 'frozenRows':
        sheet.frozenRows = op.n;
        break;
      case 'frozenColumns':
        sheet.frozenColumns = op.n;
        break;
      case 'prop':
        sheet.props[op.key] = op.value;
        break;
      case 'conditionalFormats':
        sheet.conditionalFormats = op.rules;
        break;
      case 'charts':
        sheet.charts = op.charts;
        break;
    }
  }

  private storeValue(sheet: SheetModel, r: number, c: number, input: unknown): void {
    const stored = this.coerce(input, sheet, r, c);
    sheet.setValue(r, c, stored.value);
    const patch: Partial<CellMeta> = { formula: stored.formula };
    if (stored.numberFormat && !sheet.meta(r, c)?.numberFormat) patch.numberFormat = stored.numberFormat;
    sheet.updateMeta(r, c, patch);
  }
}

export function opSheet(op: WriteOp): number {
  return 'ref' in op ? op.ref.sh : op.sh;
}

export function forEachCell(ref: RangeRef, fn: (r: number, c: number, i: number, j: number) => void): void {
  for (let i = 0; i < ref.h; i++) for (let j = 0; j < ref.w; j++) fn(ref.r + i, ref.c + j, i, j);
}

function overlaps(a: RangeRef, b: RangeRef): boolean {
  return a.r < b.r + b.h && b.r < a.r + a.h && a.c < b.c + b.w && b.c < a.c + a.w;
}

/** Sheets orders numbers before text, text before booleans; empties always last. */
function compareCells(a: CellValue, b: CellValue): number {
  const rank = (v: CellValue) =>
    v === '' ? 4 : typeof v === 'number' || v instanceof Date ? 0 : typeof v === 'string' ? 1 : 2;
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 0) return Number(a) - Number(b);
  if (ra === 1) return String(a).localeCompare(String(b), 'ja');
  return Number(a) - Number(b);
}

function sortRows(sheet: SheetModel, ref: RangeRef, keys: { column: number; ascending: boolean }[]): void {
  const slice = [];
  for (let i = 0; i < ref.h; i++) {
    const row = sheet.rows[ref.r - 1 + i] ?? { v: [] };
    slice.push(row);
  }
  // Only the range's columns move in Sheets; ranges here are whole data rows in practice, so rows move whole.
  slice.sort((x, y) => {
    for (const k of keys) {
      const a = x.v[k.column - 1] ?? '';
      const b = y.v[k.column - 1] ?? '';
      const emptyLast = (a === '' ? 1 : 0) - (b === '' ? 1 : 0);
      if (emptyLast !== 0) return emptyLast;
      const d = compareCells(a, b);
      if (d !== 0) return k.ascending ? d : -d;
    }
    return 0;
  });
  slice.forEach((row, i) => {
    sheet.rows[ref.r - 1 + i] = row;
  });
}
