/**
 * The ルール sheet (DESIGN §3), one file per job: model.ts (what a rule is, the sheet's sentences),
 * regex.ts (regular-expression safety), parse.ts (cells → rules), match.ts (a line → the winning rule),
 * diagnostics.ts (rules that can never win, the 診断 column), candidates.ts (ルール候補 from people's
 * approvals), starter.ts (例のルール). Pure: the sheet's values come in as getValues returns them.
 */
export * from './diagnostics';
export * from './match';
export * from './model';
export * from './parse';
export * from './regex';
