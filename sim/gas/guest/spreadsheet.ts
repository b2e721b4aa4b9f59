/**
 * SpreadsheetApp as guest code sees it: thin objects holding plain refs; every method is one
 * service call (no caching, so call counts match what Apps Script bills).
 */
import { columnToLetters, toA1 } from '../lib/a1';
import { CHART_IDS_PER_SHEET } from '../lib/charts';
import type {
  ChartSpec,
  ConditionalFormatSpec,
  ProtectionSpec,
  RangeRef,
  StyleKey,
  ValidationSpec,
} from '../services/sheets-model';
import { call, GasException } from './channel';
import { makeUi } from './ui';

const S = 'sheets';

type Grid = unknown[][];

function fill(value: unknown) {
  return { fill: value };
}

function styleGrid(range: Range, key: StyleKey): unknown[][] {
  return call<unknown[][]>(S, 'getStyles', range.ref, key);
}

export class Range {
  constructor(readonly ref: RangeRef) {}

  private sub(r: number, c: number, h: number, w: number): Range {
    return new Range(call<RangeRef>(S, 'range', this.ref.sh, r, c, h, w));
  }
  private first(): RangeRef {
    return { ...this.ref, h: 1, w: 1 };
  }
  private setStyle(key: StyleKey, data: unknown): Range {
    call(S, 'setStyles', this.ref, key, Array.isArray(data) ? data : fill(data));
    return this;
  }

  getSheet(): Sheet {
    return new Sheet(this.ref.sh);
  }
  getRow(): number {
    return this.ref.r;
  }
  getColumn(): number {
    return this.ref.c;
  }
  getNumRows(): number {
    return this.ref.h;
  }
  getNumColumns(): number {
    return this.ref.w;
  }
  getLastRow(): number {
    return this.ref.r + this.ref.h - 1;
  }
  getLastColumn(): number {
    return this.ref.c + this.ref.w - 1;
  }
  getA1Notation(): string {
    return toA1(this.ref.r, this.ref.c, this.ref.h, this.ref.w);
  }
  getCell(row: number, column: number): Range {
    return this.sub(this.ref.r + row - 1, this.ref.c + column - 1, 1, 1);
  }
  offset(rowOffset: number, columnOffset: number, numRows?: number, numColumns?: number): Range {
    return this.sub(
      this.ref.r + rowOffset,
      this.ref.c + columnOffset,
      numRows ?? this.ref.h,
      numColumns ?? this.ref.w,
    );
  }

  getValues(): Grid {
    return call<Grid>(S, 'getValues', this.ref);
  }
  getValue(): unknown {
    return call<Grid>(S, 'getValues', this.first())[0][0];
  }
  getDisplayValues(): string[][] {
    return call<string[][]>(S, 'getDisplayValues', this.ref);
  }
  getDisplayValue(): string {
    return call<string[][]>(S, 'getDisplayValues', this.first())[0][0];
  }
  getFormulas(): string[][] {
    return call<string[][]>(S, 'getFormulas', this.ref);
  }
  getFormula(): string {
    return call<string[][]>(S, 'getFormulas', this.first())[0][0];
  }
  isBlank(): boolean {
    return this.getValues().every((row) => row.every((v) => v === ''));
  }
  setValues(values: Grid): Range {
    call(S, 'setValues', this.ref, values);
    return this;
  }
  setValue(value: unknown): Range {
    call(S, 'setValues', this.ref, fill(value));
    return this;
  }
  setFormula(formula: string): Range {
    call(S, 'setFormulas', this.ref, fill(formula));
    return this;
  }
  setFormulas(formulas: string[][]): Range {
    call(S, 'setFormulas', this.ref, formulas);
    return this;
  }
  getNumberFormats(): string[][] {
    return call<string[][]>(S, 'getNumberFormats', this.ref);
  }
  getNumberFormat(): string {
    return call<string[][]>(S, 'getNumberFormats', this.first())[0][0];
  }
  setNumberFormat(format: string): Range {
    call(S, 'setNumberFormats', this.ref, fill(format));
    return this;
  }
  setNumberFormats(formats: string[][]): Range {
    call(S, 'setNumberFormats', this.ref, formats);
    return this;
  }

  getDataValidations(): (DataValidation | null)[][] {
    return call<(ValidationSpec | null)[][]>(S, 'getValidations', this.ref).map((row) =>
      row.map((v) => (v ? new DataValidation(v) : null)),
    );
  }
  getDataValidation(): DataValidation | null {
    const v = call<(ValidationSpec | null)[][]>(S, 'getValidations', this.first())[0][0];
    return v ? new DataValidation(v) : null;
  }
  setDataValidation(rule: DataValidation | null): Range {
    call(S, 'setValidations', this.ref, fill(rule ? rule.spec : null));
    return this;
  }
  setDataValidations(rules: (DataValidation | null)[][]): Range {
    call(
      S,
      'setValidations',
      this.ref,
      rules.map((row) => row.map((r) => (r ? r.spec : null))),
    );
    return this;
  }
  clearDataValidations(): Range {
    call(S, 'clear', this.ref, { contents: false, formats: false, validations: true, notes: false });
    return this;
  }
  insertCheckboxes(checked?: unknown, unchecked?: unknown): Range {
    call(S, 'insertCheckboxes', this.ref, checked ?? null, unchecked ?? null);
    return this;
  }
  removeCheckboxes(): Range {
    call(S, 'clear', this.ref, { contents: true, formats: false, validations: true, notes: false });
    return this;
  }
  /** true / false when every cell is a checked / unchecked checkbox; null otherwise. */
  isChecked(): boolean | null {
    const rules = call<(ValidationSpec | null)[][]>(S, 'getValidations', this.ref);
    const values = this.getValues();
    let all: boolean | null = null;
    for (let i = 0; i < values.length; i++) {
      for (let j = 0; j < values[i].length; j++) {
        const rule = rules[i][j];
        if (rule?.criteria !== 'CHECKBOX') return null;
        const checkedValue = rule.values.length > 0 ? rule.values[0] : true;
        const state = values[i][j] === checkedValue;
        if (all === null) all = state;
        else if (all !== state) return null;
      }
    }
    return all;
  }
  check(): Range {
    return this.setValue(true);
  }
  uncheck(): Range {
    return this.setValue(false);
  }

  clear(options?: {
    contentsOnly?: boolean;
    formatOnly?: boolean;
    validationsOnly?: boolean;
    commentsOnly?: boolean;
  }): Range {
    const o = options ?? {};
    const only = o.contentsOnly || o.formatOnly || o.validationsOnly || o.commentsOnly;
    call(S, 'clear', this.ref, {
      contents: !only || !!o.contentsOnly,
      formats: !only || !!o.formatOnly,
      validations: !only || !!o.validationsOnly,
      notes: !only || !!o.commentsOnly,
    });
    return this;
  }
  clearContent(): Range {
    call(S, 'clear', this.ref, { contents: true, formats: false, validations: false, notes: false });
    return this;
  }
  clearFormat(): Range {
    call(S, 'clear', this.ref, { contents: false, formats: true, validations: false, notes: false });
    return this;
  }
  clearNote(): Range {
    call(S, 'clear', this.ref, { contents: false, formats: false, validations: false, notes: true });
    return this;
  }

  setNote(note: string | null): Range {
    return this.setStyle('note', note ?? '');
  }
  setNotes(notes: string[][]): Range {
    return this.setStyle('note', notes);
  }
  getNote(): string {
    return (styleGrid(new Range(this.first()), 'note')[0][0] as string | null) ?? '';
  }
  getNotes(): string[][] {
    return styleGrid(this, 'note').map((row) => row.map((v) => (v as string | null) ?? ''));
  }
  setBackground(color: string | null): Range {
    return this.setStyle('background', color ?? '');
  }
  setBackgrounds(colors: string[][]): Range {
    return this.setStyle('background', colors);
  }
  getBackground(): string {
    return (styleGrid(new Range(this.first()), 'background')[0][0] as string | null) ?? '#ffffff';
  }
  getBackgrounds(): string[][] {
    return styleGrid(this, 'background').map((row) => row.map((v) => (v as string | null) ?? '#ffffff'));
  }
  setFontWeight(weight: string | null): Range {
    return this.setStyle('fontWeight', weight ?? '');
  }
  setFontWeights(weights: string[][]): Range {
    return this.setStyle('fontWeight', weights);
  }
  getFontWeight(): string {
    return (styleGrid(new Range(this.first()), 'fontWeight')[0][0] as string | null) ?? 'normal';
  }
  getFontWeights(): string[][] {
    return styleGrid(this, 'fontWeight').map((row) => row.map((v) => (v as string | null) ?? 'normal'));
  }
  setFontColor(color: string | null): Range {
    return this.setStyle('fontColor', color ?? '');
  }
  getFontColor(): string {
    return (styleGrid(new Range(this.first()), 'fontColor')[0][0] as string | null) ?? '#000000';
  }
  setFontSize(size: number): Range {
    return this.setStyle('fontSize', size);
  }
  setFontStyle(style: string | null): Range {
    return this.setStyle('fontStyle', style ?? '');
  }
  setHorizontalAlignment(alignment: string | null): Range {
    return this.setStyle('horizontalAlignment', alignment ?? '');
  }
  setVerticalAlignment(alignment: string | null): Range {
    return this.setStyle('verticalAlignment', alignment ?? '');
  }
  setWrap(wrap: boolean): Range {
    return this.setStyle('wrap', wrap);
  }

  protect(): Protection {
    return new Protection(call<ProtectionSpec>(S, 'protect', this.ref.sh, this.ref));
  }
  sort(
    spec:
      | number
      | { column: number; ascending?: boolean }
      | (number | { column: number; ascending?: boolean })[],
  ): Range {
    const list = Array.isArray(spec) ? spec : [spec];
    const keys = list.map((k) =>
      typeof k === 'number'
        ? { column: k - this.ref.c + 1, ascending: true }
        : { column: k.column - this.ref.c + 1, ascending: k.ascending !== false },
    );
    call(S, 'sort', this.ref, keys);
    return this;
  }
  createTextFinder(text: string): TextFinder {
    return new TextFinder([this.ref], text);
  }
  activate(): Range {
    return this;
  }
}

export class DataValidation {
  constructor(readonly spec: ValidationSpec) {}
  getCriteriaType(): string {
    return this.spec.criteria;
  }
  getCriteriaValues(): unknown[] {
    return this.spec.values.map((v) => (isRef(v) ? new Range(v) : v));
  }
  getAllowInvalid(): boolean {
    return this.spec.allowInvalid;
  }
  getHelpText(): string | null {
    return this.spec.helpText ?? null;
  }
  copy(): DataValidationBuilder {
    return new DataValidationBuilder({ ...this.spec });
  }
}

function isRef(v: unknown): v is RangeRef {
  return typeof v === 'object' && v !== null && 'sh' in v && 'r' in v;
}

export class DataValidationBuilder {
  constructor(private spec: ValidationSpec = { criteria: '', values: [], allowInvalid: true }) {}
  private set(criteria: string, values: unknown[]): DataValidationBuilder {
    this.spec = { ...this.spec, criteria, values };
    return this;
  }
  requireValueInList(values: unknown[], showDropdown = true): DataValidationBuilder {
    return this.set('VALUE_IN_LIST', [values, showDropdown]);
  }
  requireValueInRange(range: Range, showDropdown = true): DataValidationBuilder {
    return this.set('VALUE_IN_RANGE', [range.ref, showDropdown]);
  }
  requireCheckbox(checked?: unknown, unchecked?: unknown): DataValidationBuilder {
    const values = checked === undefined ? [] : unchecked === undefined ? [checked] : [checked, unchecked];
    return this.set('CHECKBOX', values);
  }
  requireNumberBetween(start: number, end: number): DataValidationBuilder {
    return this.set('NUMBER_BETWEEN', [start, end]);
  }
  requireNumberGreaterThanOrEqualTo(n: number): DataValidationBuilder {
    return this.set('NUMBER_GREATER_THAN_OR_EQUAL_TO', [n]);
  }
  requireDate(): DataValidationBuilder {
    return this.set('DATE_IS_VALID_DATE', []);
  }
  requireFormulaSatisfied(formula: string): DataValidationBuilder {
    return this.set('CUSTOM_FORMULA', [formula]);
  }
  setAllowInvalid(allow: boolean): DataValidationBuilder {
    this.spec = { ...this.spec, allowInvalid: allow };
    return this;
  }
  setHelpText(text: string): DataValidationBuilder {
    this.spec = { ...this.spec, helpText: text };
    return this;
  }
  getCriteriaType(): string {
    return this.spec.criteria;
  }
  build(): DataValidation {
    if (!this.spec.criteria)
      throw new GasException('You must specify criteria for the data validation rule.');
    return new DataValidation({ ...this.spec });
  }
}

export class BooleanCondition {
  constructor(private readonly spec: ConditionalFormatSpec) {}
  getCriteriaType(): string {
    return this.spec.condition.type;
  }
  getCriteriaValues(): unknown[] {
    return this.spec.condition.values;
  }
  getBackground(): string | null {
    return this.spec.format.background ?? null;
  }
  getFontColor(): string | null {
    return this.spec.format.fontColor ?? null;
  }
  getBold(): boolean | null {
    return this.spec.format.bold ?? null;
  }
  getItalic(): boolean | null {
    return this.spec.format.italic ?? null;
  }
}

export class ConditionalFormatRule {
  constructor(readonly spec: ConditionalFormatSpec) {}
  getRanges(): Range[] {
    return this.spec.ranges.map((r) => new Range(r));
  }
  getBooleanCondition(): BooleanCondition {
    return new BooleanCondition(this.spec);
  }
  copy(): ConditionalFormatRuleBuilder {
    return new ConditionalFormatRuleBuilder(JSON.parse(JSON.stringify(this.spec)));
  }
}

export class ConditionalFormatRuleBuilder {
  constructor(
    private spec: ConditionalFormatSpec = { ranges: [], condition: { type: '', values: [] }, format: {} },
  ) {}
  private when(type: string, values: unknown[]): ConditionalFormatRuleBuilder {
    this.spec.condition = { type, values };
    return this;
  }
  whenTextEqualTo(text: string) {
    return this.when('TEXT_EQUAL_TO', [text]);
  }
  whenTextContains(text: string) {
    return this.when('TEXT_CONTAINS', [text]);
  }
  whenTextDoesNotContain(text: string) {
    return this.when('TEXT_DOES_NOT_CONTAIN', [text]);
  }
  whenTextStartsWith(text: string) {
    return this.when('TEXT_STARTS_WITH', [text]);
  }
  whenTextEndsWith(text: string) {
    return this.when('TEXT_ENDS_WITH', [text]);
  }
  whenCellEmpty() {
    return this.when('CELL_EMPTY', []);
  }
  whenCellNotEmpty() {
    return this.when('CELL_NOT_EMPTY', []);
  }
  whenNumberGreaterThan(n: number) {
    return this.when('NUMBER_GREATER_THAN', [n]);
  }
  whenNumberLessThan(n: number) {
    return this.when('NUMBER_LESS_THAN', [n]);
  }
  whenNumberEqualTo(n: number) {
    return this.when('NUMBER_EQUAL_TO', [n]);
  }
  whenFormulaSatisfied(formula: string) {
    return this.when('CUSTOM_FORMULA', [formula]);
  }
  setBackground(color: string | null) {
    this.spec.format.background = color ?? undefined;
    return this;
  }
  setFontColor(color: string | null) {
    this.spec.format.fontColor = color ?? undefined;
    return this;
  }
  setBold(bold: boolean | null) {
    this.spec.format.bold = bold ?? undefined;
    return this;
  }
  setItalic(italic: boolean | null) {
    this.spec.format.italic = italic ?? undefined;
    return this;
  }
  setRanges(ranges: Range[]) {
    this.spec.ranges = ranges.map((r) => r.ref);
    return this;
  }
  build(): ConditionalFormatRule {
    if (!this.spec.condition.type) throw new GasException('Conditional format rule must have a condition.');
    if (this.spec.ranges.length === 0)
      throw new GasException('Conditional format rule must have at least one range.');
    return new ConditionalFormatRule(JSON.parse(JSON.stringify(this.spec)));
  }
}

/** Messages where Apps Script's wording is not documented [I]. */
const CHART_MESSAGES = {
  noType: 'Chart type must be set.',
  noRange: 'Chart must have at least one data range.',
  notOnSheet: 'The chart does not exist on this sheet.',
} as const;

export class EmbeddedChart {
  constructor(readonly spec: ChartSpec) {}
  /** Null until the chart is inserted, as in Apps Script. */
  getChartId(): number | null {
    return this.spec.id === 0 ? null : this.spec.id;
  }
  getRanges(): Range[] {
    return this.spec.ranges.map((r) => new Range(r));
  }
  getOptions(): { get(option: string): unknown } {
    const options = this.spec.options;
    return { get: (option: string) => options[option] ?? null };
  }
  getContainerInfo() {
    const p = this.spec.position;
    return {
      getAnchorRow: () => p.row,
      getAnchorColumn: () => p.column,
      getOffsetX: () => p.offsetX,
      getOffsetY: () => p.offsetY,
    };
  }
  modify(): EmbeddedChartBuilder {
    return new EmbeddedChartBuilder(JSON.parse(JSON.stringify(this.spec)));
  }
}

export class EmbeddedChartBuilder {
  constructor(
    private spec: ChartSpec = {
      id: 0,
      type: '',
      ranges: [],
      position: { row: 1, column: 1, offsetX: 0, offsetY: 0 },
      options: {},
    },
  ) {}
  addRange(range: Range) {
    this.spec.ranges.push(range.ref);
    return this;
  }
  removeRange(range: Range) {
    const r = range.ref;
    this.spec.ranges = this.spec.ranges.filter((x) => JSON.stringify(x) !== JSON.stringify(r));
    return this;
  }
  clearRanges() {
    this.spec.ranges = [];
    return this;
  }
  getRanges(): Range[] {
    return this.spec.ranges.map((r) => new Range(r));
  }
  setChartType(type: string) {
    this.spec.type = String(type);
    return this;
  }
  getChartType(): string {
    return this.spec.type;
  }
  setPosition(anchorRow: number, anchorColumn: number, offsetX: number, offsetY: number) {
    this.spec.position = { row: anchorRow, column: anchorColumn, offsetX, offsetY };
    return this;
  }
  setOption(option: string, value: unknown) {
    this.spec.options[option] = JSON.parse(JSON.stringify(value ?? null));
    return this;
  }
  asColumnChart() {
    return this.setChartType('COLUMN');
  }
  asBarChart() {
    return this.setChartType('BAR');
  }
  asPieChart() {
    return this.setChartType('PIE');
  }
  asLineChart() {
    return this.setChartType('LINE');
  }
  build(): EmbeddedChart {
    if (!this.spec.type) throw new GasException(CHART_MESSAGES.noType);
    if (this.spec.ranges.length === 0) throw new GasException(CHART_MESSAGES.noRange);
    return new EmbeddedChart(JSON.parse(JSON.stringify(this.spec)));
  }
}

class User {
  constructor(private readonly email: string) {}
  getEmail(): string {
    return this.email;
  }
}

export class Protection {
  constructor(private spec: ProtectionSpec) {}
  private update(patch: Partial<ProtectionSpec>): Protection {
    this.spec = call<ProtectionSpec>(S, 'updateProtection', this.spec.id, patch);
    return this;
  }
  getProtectionType(): string {
    return this.spec.ref ? 'RANGE' : 'SHEET';
  }
  getRange(): Range {
    return this.spec.ref ? new Range(this.spec.ref) : new Sheet(this.spec.sh).getDataRange();
  }
  getDescription(): string {
    return this.spec.description;
  }
  setDescription(description: string): Protection {
    return this.update({ description });
  }
  isWarningOnly(): boolean {
    return this.spec.warningOnly;
  }
  setWarningOnly(warningOnly: boolean): Protection {
    return this.update({ warningOnly });
  }
  getEditors(): User[] {
    return this.spec.editors.map((e) => new User(e));
  }
  addEditor(email: string): Protection {
    return this.update({ editors: [...new Set([...this.spec.editors, email])] });
  }
  addEditors(emails: string[]): Protection {
    return this.update({ editors: [...new Set([...this.spec.editors, ...emails])] });
  }
  removeEditor(email: string): Protection {
    return this.update({ editors: this.spec.editors.filter((e) => e !== email) });
  }
  removeEditors(emails: string[]): Protection {
    return this.update({ editors: this.spec.editors.filter((e) => !emails.includes(e)) });
  }
  setDomainEdit(domainEdit: boolean): Protection {
    return this.update({ domainEdit });
  }
  canEdit(): boolean {
    const me = call<string>('session', 'effectiveUser');
    return this.spec.warningOnly || this.spec.editors.includes(me);
  }
  remove(): void {
    call(S, 'removeProtection', this.spec.id);
  }
}

export class TextFinder {
  private opts = {
    matchCase: false,
    matchEntireCell: false,
    useRegularExpression: false,
    matchFormulaText: false,
  };
  private hits: RangeRef[] | null = null;
  private index = -1;
  constructor(
    private readonly scope: RangeRef[] | null,
    private readonly text: string,
  ) {}
  private option(key: keyof TextFinder['opts'], value: boolean): TextFinder {
    this.opts = { ...this.opts, [key]: value };
    this.hits = null;
    return this;
  }
  matchCase(v: boolean) {
    return this.option('matchCase', v);
  }
  matchEntireCell(v: boolean) {
    return this.option('matchEntireCell', v);
  }
  useRegularExpression(v: boolean) {
    return this.option('useRegularExpression', v);
  }
  matchFormulaText(v: boolean) {
    return this.option('matchFormulaText', v);
  }
  ignoreDiacritics(_v: boolean) {
    return this;
  }
  findAll(): Range[] {
    return call<RangeRef[]>(S, 'find', this.scope, this.text, this.opts).map((r) => new Range(r));
  }
  findNext(): Range | null {
    if (!this.hits) this.hits = call<RangeRef[]>(S, 'find', this.scope, this.text, this.opts);
    if (this.index + 1 >= this.hits.length) return null;
    this.index += 1;
    return new Range(this.hits[this.index]);
  }
  findPrevious(): Range | null {
    if (!this.hits || this.index <= 0) return null;
    this.index -= 1;
    return new Range(this.hits[this.index]);
  }
  getCurrentMatch(): Range | null {
    return this.hits && this.index >= 0 ? new Range(this.hits[this.index]) : null;
  }
  replaceAllWith(replacement: string): number {
    return call<number>(S, 'replaceAll', this.scope, this.text, replacement, this.opts);
  }
}

/** Sheet.getRangeList: the same operation on several ranges of one sheet, in one call. */
export class RangeList {
  constructor(readonly refs: RangeRef[]) {}

  getRanges(): Range[] {
    return this.refs.map((r) => new Range(r));
  }
  setValue(value: unknown): RangeList {
    call(S, 'setValueList', this.refs, value);
    return this;
  }
  clearContent(): RangeList {
    call(S, 'setValueList', this.refs, '');
    return this;
  }
  clearFormat(): RangeList {
    call(S, 'clearList', this.refs, { contents: false, formats: true, validations: false, notes: false });
    return this;
  }
}

export class Sheet {
  constructor(readonly id: number) {}

  getSheetId(): number {
    return this.id;
  }
  getName(): string {
    const info = call<{ id: number; name: string } | null>(S, 'sheetById', this.id);
    if (!info) throw new GasException('The sheet has been deleted or is no longer available.');
    return info.name;
  }
  setName(name: string): Sheet {
    call(S, 'renameSheet', this.id, name);
    return this;
  }
  getIndex(): number {
    return call<number>(S, 'sheetIndex', this.id);
  }
  getParent(): Spreadsheet {
    return theSpreadsheet;
  }
  getRange(a: string | number, column?: number, numRows?: number, numColumns?: number): Range {
    if (typeof a === 'string') return new Range(call<RangeRef>(S, 'rangeA1', this.id, a));
    if (column === undefined)
      throw new GasException(
        "The parameters (number) don't match the method signature for SpreadsheetApp.Sheet.getRange.",
      );
    return new Range(call<RangeRef>(S, 'range', this.id, a, column, numRows ?? 1, numColumns ?? 1));
  }
  getDataRange(): Range {
    return new Range(call<RangeRef>(S, 'dataRange', this.id));
  }
  getRangeList(a1Notations: string[]): RangeList {
    return new RangeList(call<RangeRef[]>(S, 'rangeListA1', this.id, a1Notations));
  }
  getLastRow(): number {
    return call<number>(S, 'lastRow', this.id);
  }
  getLastColumn(): number {
    return call<number>(S, 'lastColumn', this.id);
  }
  getMaxRows(): number {
    return call<number>(S, 'maxRows', this.id);
  }
  getMaxColumns(): number {
    return call<number>(S, 'maxColumns', this.id);
  }
  appendRow(values: unknown[]): Sheet {
    call(S, 'appendRow', this.id, values);
    return this;
  }
  insertRowsAfter(afterPosition: number, howMany: number): Sheet {
    call(S, 'insertRowsAfter', this.id, afterPosition, howMany);
    return this;
  }
  insertRowAfter(afterPosition: number): Sheet {
    return this.insertRowsAfter(afterPosition, 1);
  }
  insertRowsBefore(beforePosition: number, howMany: number): Sheet {
    call(S, 'insertRowsBefore', this.id, beforePosition, howMany);
    return this;
  }
  insertRowBefore(beforePosition: number): Sheet {
    return this.insertRowsBefore(beforePosition, 1);
  }
  insertColumnsAfter(afterPosition: number, howMany: number): Sheet {
    call(S, 'insertColumnsAfter', this.id, afterPosition, howMany);
    return this;
  }
  insertColumnAfter(afterPosition: number): Sheet {
    return this.insertColumnsAfter(afterPosition, 1);
  }
  deleteRows(rowPosition: number, howMany: number): void {
    call(S, 'deleteRows', this.id, rowPosition, howMany);
  }
  deleteRow(rowPosition: number): Sheet {
    call(S, 'deleteRows', this.id, rowPosition, 1);
    return this;
  }
  setFrozenRows(rows: number): void {
    call(S, 'setFrozenRows', this.id, rows);
  }
  getFrozenRows(): number {
    return call<number>(S, 'frozenRows', this.id);
  }
  setFrozenColumns(columns: number): void {
    call(S, 'setFrozenColumns', this.id, columns);
  }
  getFrozenColumns(): number {
    return call<number>(S, 'frozenColumns', this.id);
  }
  setColumnWidth(column: number, width: number): Sheet {
    call(S, 'setProp', this.id, `columnWidth:${column}`, width);
    return this;
  }
  setColumnWidths(start: number, count: number, width: number): Sheet {
    for (let c = start; c < start + count; c++) this.setColumnWidth(c, width);
    return this;
  }
  getColumnWidth(column: number): number {
    return (call<number | null>(S, 'getProp', this.id, `columnWidth:${column}`) ?? 100) as number;
  }
  autoResizeColumns(start: number, count: number): Sheet {
    call(S, 'setProp', this.id, `autoResize:${columnToLetters(start)}`, count);
    return this;
  }
  hideColumns(column: number, count = 1): void {
    for (let c = column; c < column + count; c++) call(S, 'setProp', this.id, `hiddenColumn:${c}`, true);
  }
  showColumns(column: number, count = 1): void {
    for (let c = column; c < column + count; c++) call(S, 'setProp', this.id, `hiddenColumn:${c}`, false);
  }
  isColumnHiddenByUser(column: number): boolean {
    return call<boolean | null>(S, 'getProp', this.id, `hiddenColumn:${column}`) === true;
  }
  setTabColor(color: string | null): Sheet {
    call(S, 'setProp', this.id, 'tabColor', color);
    return this;
  }
  getTabColor(): string | null {
    return call<string | null>(S, 'getProp', this.id, 'tabColor');
  }
  /** Only into this spreadsheet (the emulator has one). */
  copyTo(_spreadsheet: unknown): Sheet {
    const info = call<{ id: number }>(S, 'copySheet', this.id);
    return new Sheet(info.id);
  }
  hideSheet(): Sheet {
    call(S, 'setProp', this.id, 'hidden', true);
    return this;
  }
  showSheet(): Sheet {
    call(S, 'setProp', this.id, 'hidden', false);
    return this;
  }
  isSheetHidden(): boolean {
    return call<boolean | null>(S, 'getProp', this.id, 'hidden') === true;
  }
  getConditionalFormatRules(): ConditionalFormatRule[] {
    return call<ConditionalFormatSpec[]>(S, 'conditionalFormats', this.id).map(
      (r) => new ConditionalFormatRule(r),
    );
  }
  setConditionalFormatRules(rules: ConditionalFormatRule[]): void {
    call(
      S,
      'setConditionalFormats',
      this.id,
      rules.map((r) => r.spec),
    );
  }
  newChart(): EmbeddedChartBuilder {
    return new EmbeddedChartBuilder();
  }
  getCharts(): EmbeddedChart[] {
    return call<ChartSpec[]>(S, 'charts', this.id).map((c) => new EmbeddedChart(c));
  }
  /** One read and one write: the emulator keeps a sheet's charts as one list. */
  insertChart(chart: EmbeddedChart): void {
    const charts = call<ChartSpec[]>(S, 'charts', this.id);
    const next = Math.max(this.id * CHART_IDS_PER_SHEET, ...charts.map((c) => c.id)) + 1;
    chart.spec.id = next;
    call(S, 'setCharts', this.id, [...charts, chart.spec]);
  }
  updateChart(chart: EmbeddedChart): void {
    const charts = call<ChartSpec[]>(S, 'charts', this.id);
    if (!charts.some((c) => c.id === chart.spec.id)) throw new GasException(CHART_MESSAGES.notOnSheet);
    call(
      S,
      'setCharts',
      this.id,
      charts.map((c) => (c.id === chart.spec.id ? chart.spec : c)),
    );
  }
  removeChart(chart: EmbeddedChart): void {
    const charts = call<ChartSpec[]>(S, 'charts', this.id);
    if (!charts.some((c) => c.id === chart.spec.id)) throw new GasException(CHART_MESSAGES.notOnSheet);
    call(
      S,
      'setCharts',
      this.id,
      charts.filter((c) => c.id !== chart.spec.id),
    );
  }
  clearConditionalFormatRules(): void {
    call(S, 'setConditionalFormats', this.id, []);
  }
  protect(): Protection {
    return new Protection(call<ProtectionSpec>(S, 'protect', this.id, null));
  }
  getProtections(type: string): Protection[] {
    return call<ProtectionSpec[]>(S, 'protections', this.id, String(type)).map((p) => new Protection(p));
  }
  createTextFinder(text: string): TextFinder {
    return new TextFinder([call<RangeRef>(S, 'dataRange', this.id)], text);
  }
  private whole(): RangeRef {
    return { sh: this.id, r: 1, c: 1, h: this.getMaxRows(), w: this.getMaxColumns() };
  }
  clear(): Sheet {
    call(S, 'clear', this.whole(), { contents: true, formats: true, validations: false, notes: true });
    return this;
  }
  clearContents(): Sheet {
    call(S, 'clear', this.whole(), { contents: true, formats: false, validations: false, notes: false });
    return this;
  }
  clearFormats(): Sheet {
    call(S, 'clear', this.whole(), { contents: false, formats: true, validations: false, notes: false });
    return this;
  }
  /** Sorts the rows below the frozen rows by one column, as Sheet.sort does. */
  sort(column: number, ascending = true): Sheet {
    const frozen = this.getFrozenRows();
    const last = this.getLastRow();
    if (last > frozen) {
      const ref = { sh: this.id, r: frozen + 1, c: 1, h: last - frozen, w: this.getMaxColumns() };
      call(S, 'sort', ref, [{ column, ascending }]);
    }
    return this;
  }
  activate(): Sheet {
    activeSheetId = this.id;
    return this;
  }
  showSheetIfHidden(): Sheet {
    return this.showSheet();
  }
}

let activeSheetId: number | null = null;

interface SpreadsheetInfo {
  id: string;
  name: string;
  url: string;
  timeZone: string;
  owner: string;
  editors: string[];
}

export class Spreadsheet {
  private info(): SpreadsheetInfo {
    return call<SpreadsheetInfo>(S, 'info');
  }
  getId(): string {
    return this.info().id;
  }
  getName(): string {
    return this.info().name;
  }
  getUrl(): string {
    return this.info().url;
  }
  getSpreadsheetTimeZone(): string {
    return this.info().timeZone;
  }
  getSpreadsheetLocale(): string {
    return 'ja_JP';
  }
  getOwner(): User {
    return new User(this.info().owner);
  }
  getEditors(): User[] {
    const i = this.info();
    return [i.owner, ...i.editors].map((e) => new User(e));
  }
  getSheets(): Sheet[] {
    return call<{ id: number }[]>(S, 'sheets').map((s) => new Sheet(s.id));
  }
  getNumSheets(): number {
    return call<unknown[]>(S, 'sheets').length;
  }
  getSheetByName(name: string): Sheet | null {
    const info = call<{ id: number } | null>(S, 'sheetByName', name);
    return info ? new Sheet(info.id) : null;
  }
  getSheetById(id: number): Sheet | null {
    const info = call<{ id: number } | null>(S, 'sheetById', id);
    return info ? new Sheet(info.id) : null;
  }
  insertSheet(a?: string | number, b?: number): Sheet {
    const name = typeof a === 'string' ? a : null;
    const index = typeof a === 'number' ? a : typeof b === 'number' ? b : null;
    const info = call<{ id: number }>(S, 'insertSheet', name, index);
    activeSheetId = info.id;
    return new Sheet(info.id);
  }
  deleteSheet(sheet: Sheet): void {
    call(S, 'deleteSheet', sheet.id);
  }
  getActiveSheet(): Sheet {
    if (activeSheetId !== null && call(S, 'sheetById', activeSheetId)) return new Sheet(activeSheetId);
    return this.getSheets()[0];
  }
  setActiveSheet(sheet: Sheet): Sheet {
    activeSheetId = sheet.id;
    return sheet;
  }
  getRange(a1: string): Range {
    return new Range(call<RangeRef>(S, 'rangeA1', null, a1));
  }
  toast(message: string, title?: string, timeoutSeconds?: number): void {
    call(S, 'toast', String(message), title ?? '', timeoutSeconds ?? 5);
  }
  createTextFinder(text: string): TextFinder {
    return new TextFinder(null, text);
  }
  rename(name: string): void {
    throw new GasException(
      `Renaming the spreadsheet to ${name} is not modelled by the emulator.`,
      'EmulatorError',
    );
  }
}

const theSpreadsheet = new Spreadsheet();

export function makeSpreadsheetApp() {
  return {
    getActiveSpreadsheet: () => theSpreadsheet,
    getActive: () => theSpreadsheet,
    getActiveSheet: () => theSpreadsheet.getActiveSheet(),
    openById: (id: string) => {
      if (id === theSpreadsheet.getId()) return theSpreadsheet;
      throw new GasException(
        `Unexpected error while getting the method or property openById on object SpreadsheetApp.`,
      );
    },
    flush: () => {
      call(S, 'flush');
    },
    getUi: () => {
      call('ui', 'get');
      return makeUi();
    },
    newDataValidation: () => new DataValidationBuilder(),
    newConditionalFormatRule: () => new ConditionalFormatRuleBuilder(),
    DataValidationCriteria: enumOf([
      'VALUE_IN_LIST',
      'VALUE_IN_RANGE',
      'CHECKBOX',
      'NUMBER_BETWEEN',
      'NUMBER_GREATER_THAN_OR_EQUAL_TO',
      'DATE_IS_VALID_DATE',
      'CUSTOM_FORMULA',
    ]),
    BooleanCriteria: enumOf([
      'TEXT_EQUAL_TO',
      'TEXT_CONTAINS',
      'TEXT_DOES_NOT_CONTAIN',
      'TEXT_STARTS_WITH',
      'TEXT_ENDS_WITH',
      'CELL_EMPTY',
      'CELL_NOT_EMPTY',
      'NUMBER_GREATER_THAN',
      'NUMBER_LESS_THAN',
      'NUMBER_EQUAL_TO',
      'CUSTOM_FORMULA',
    ]),
    ProtectionType: enumOf(['RANGE', 'SHEET']),
    WrapStrategy: enumOf(['WRAP', 'OVERFLOW', 'CLIP']),
    Dimension: enumOf(['COLUMNS', 'ROWS']),
  };
}

/** The Charts service: only its enums are used with embedded charts. */
export function makeCharts() {
  return {
    ChartType: enumOf([
      'AREA',
      'BAR',
      'BUBBLE',
      'CANDLESTICK',
      'COLUMN',
      'COMBO',
      'GAUGE',
      'GEO',
      'HISTOGRAM',
      'LINE',
      'ORG',
      'PIE',
      'SCATTER',
      'SPARKLINE',
      'STEPPED_AREA',
      'TABLE',
      'TIMELINE',
      'TREEMAP',
      'WATERFALL',
    ]),
    Position: enumOf(['TOP', 'BOTTOM', 'LEFT', 'RIGHT', 'NONE']),
  };
}

/** Apps Script enums print as their names and compare as such. */
export function enumOf<K extends string>(names: readonly K[]): Record<K, K> {
  const out = {} as Record<K, K>;
  for (const n of names) out[n] = n;
  return out;
}
