/**
 * The layers of DESIGN §8, checked on the import graph of every file under src/ and sim/ (parsed with
 * TypeScript itself): pure src/core imports only src/core; src/mf the core; src/gas the core and mf;
 * src/ui the core; src/services the core, mf, gas and ui; src/app everything but main.ts, and no other entry file
 * (but a composite entry may run another whole); nothing in src/ imports sim/ or test/. And no import
 * cycle that runs at load time: a module reached again before it finished loading sees half its exports
 * (sim/gas/services worked only because of load order). Type-only imports are erased by the build, so
 * they count for the layers but not for cycles.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { ROOT } from '../helpers/emulator';

interface Edge {
  to: string;
  /** False for `import type`, `export type` and imports whose every name is a type. */
  runtime: boolean;
  /** The names taken from `to` ('default', or '*' for a namespace, `export *` or a dynamic import). */
  names?: readonly string[];
}

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true })
    .map((f) => path.join(dir, String(f)).split(path.sep).join('/'))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
}

function resolve(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null; // a package: outside the graph
  const base = path.posix.join(path.posix.dirname(from), spec);
  for (const c of [base, `${base}.ts`, `${base}/index.ts`]) {
    const full = path.join(ROOT, c);
    if (existsSync(full) && statSync(full).isFile()) return c;
  }
  throw new Error(`${from}: cannot resolve '${spec}'`);
}

function edgesOf(file: string): Edge[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: Edge[] = [];
  const add = (spec: ts.Expression | undefined, runtime: boolean, names: readonly string[]) => {
    if (!spec || !ts.isStringLiteral(spec)) return;
    const to = resolve(file, spec.text);
    if (to) out.push({ to, runtime, names });
  };
  const elementNames = (elements: ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>) =>
    elements.map((e) => (e.propertyName ?? e.name).text);
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name &&
            !!named &&
            ts.isNamedImports(named) &&
            named.elements.length > 0 &&
            named.elements.every((e) => e.isTypeOnly)));
      const names = [
        ...(clause?.name ? ['default'] : []),
        ...(named && ts.isNamespaceImport(named) ? ['*'] : []),
        ...(named && ts.isNamedImports(named) ? elementNames(named.elements) : []),
      ];
      add(node.moduleSpecifier, !typeOnly, names);
    } else if (ts.isExportDeclaration(node)) {
      const clause = node.exportClause;
      const typeOnly =
        node.isTypeOnly ||
        (!!clause &&
          ts.isNamedExports(clause) &&
          clause.elements.length > 0 &&
          clause.elements.every((e) => e.isTypeOnly));
      add(
        node.moduleSpecifier,
        !typeOnly,
        clause && ts.isNamedExports(clause) ? elementNames(clause.elements) : ['*'],
      );
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], true, ['*']);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

export function importGraph(files: readonly string[]): Map<string, Edge[]> {
  return new Map(files.map((f) => [f, edgesOf(f)]));
}

/**
 * The groups of files that import each other (Tarjan's strongly connected components): at load time, or
 * with `types` through type-only imports too.
 */
export function runtimeCycles(graph: ReadonlyMap<string, readonly Edge[]>, types = false): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const { to, runtime } of graph.get(v) ?? []) {
      if ((!runtime && !types) || !graph.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(v, Math.min(low.get(v) as number, low.get(to) as number));
      } else if (onStack.has(to)) low.set(v, Math.min(low.get(v) as number, index.get(to) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    const selfLoop = (graph.get(v) ?? []).some((e) => (e.runtime || types) && e.to === v);
    if (group.length > 1 || selfLoop) cycles.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

function layerOf(file: string): string {
  if (!file.startsWith('src/')) return file.split('/')[0];
  const [, top] = file.split('/');
  return top.replace(/\.ts$/, '');
}

/** Which layers each layer of src/ may import (itself always). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  core: [],
  mf: ['core'],
  gas: ['core', 'mf'],
  ui: ['core'],
  // What entry points share (issue 28): never an entry point itself, so an entry is read on its own.
  services: ['core', 'mf', 'gas', 'ui'],
  app: ['core', 'mf', 'gas', 'ui', 'services'],
  // main also wires the permission gate (services/permission-gate.ts) around handlers.
  main: ['app', 'services'],
};

/** Imports in src/ that cross the layers the wrong way. */
export function layerViolations(graph: ReadonlyMap<string, readonly Edge[]>): string[] {
  const out: string[] = [];
  for (const [from, edges] of graph) {
    if (!from.startsWith('src/')) continue;
    const layer = layerOf(from);
    const allowed = MAY_IMPORT[layer];
    if (!allowed) {
      out.push(`${from}: src/${layer} is no layer of DESIGN §8`);
      continue;
    }
    for (const { to } of edges) {
      const target = layerOf(to);
      if (target !== layer && !allowed.includes(target)) out.push(`${from} → ${to}`);
    }
  }
  return out;
}

/**
 * Entry files import no other entry file (issue 28): what two entries share lives in src/services (or
 * src/core when pure), so each entry reads on its own. The one exception is a composite entry that runs
 * another entry whole through its run function, and takes nothing else from it: the scheduled run is
 * 照合, 取込, 判定 and 登録 in turn; 本番前チェック's posting check is 登録を実行; the nightly slot is the
 * backup then the archive; the setup guide runs 初期設定.
 */
const RUNS_ANOTHER_ENTRY: Readonly<Record<string, readonly string[]>> = {
  'src/app/scheduled.ts → src/app/reconcile.ts': ['runReconcile'],
  'src/app/scheduled.ts → src/app/import-transactions.ts': ['runImport'],
  'src/app/scheduled.ts → src/app/classify-pending.ts': ['runClassify'],
  'src/app/scheduled.ts → src/app/post-approved.ts': ['runPost'],
  'src/app/self-test.ts → src/app/post-approved.ts': ['runPost'],
  'src/app/backup.ts → src/app/archive.ts': ['runArchive'],
  'src/app/setup-guide.ts → src/app/setup.ts': ['runSetup'],
};

const ENTRY_MAY_IMPORT: Readonly<Record<string, readonly string[]>> = RUNS_ANOTHER_ENTRY;

/** Imports of one entry file by another that are not a composite entry running it whole. */
export function entryImports(
  graph: ReadonlyMap<string, readonly Edge[]>,
  allowed: Readonly<Record<string, readonly string[]>> = ENTRY_MAY_IMPORT,
): string[] {
  const out: string[] = [];
  for (const [from, edges] of graph) {
    if (layerOf(from) !== 'app') continue;
    for (const { to, names = ['*'] } of edges) {
      if (layerOf(to) !== 'app' || to === from) continue;
      const pair = `${from} → ${to}`;
      const extra = names.filter((n) => !(allowed[pair] ?? []).includes(n));
      if (extra.length > 0) out.push(`${pair}: ${extra.join(', ')}`);
    }
  }
  return out;
}

const GRAPH = importGraph([...sources('src'), ...sources('sim')]);

test('no module in src/ or sim/ imports itself back at load time', () => {
  const cycles = runtimeCycles(GRAPH);
  assert.deepEqual(
    cycles.map((c) => c.join(' ↔ ')),
    [],
    'an import cycle: move what both sides need into a file of its own',
  );
});

// src/ has no loop even through types (a reader follows types too). sim/gas keeps one on purpose: each
// service is typed against the World that holds the services table; it is erased and runs nothing at load.
test('no cycle in src/ even through type-only imports (a reader follows types too)', () => {
  const src = new Map([...GRAPH].filter(([f]) => f.startsWith('src/')));
  assert.deepEqual(
    runtimeCycles(src, true).map((c) => c.join(' ↔ ')),
    [],
    'a type-only import cycle: move the shared types into a file of their own',
  );
});

test('src/core imports nothing from mf, gas, app or ui; no layer of src/ imports upward', () => {
  assert.deepEqual(layerViolations(GRAPH), []);
});

test('the check sees a cycle and an upward import when there is one', () => {
  const fake = new Map<string, Edge[]>([
    ['src/core/a.ts', [{ to: 'src/mf/b.ts', runtime: false }]],
    ['src/mf/b.ts', [{ to: 'src/mf/c.ts', runtime: true }]],
    ['src/mf/c.ts', [{ to: 'src/mf/b.ts', runtime: true }]],
    ['src/gas/d.ts', [{ to: 'src/app/e.ts', runtime: true }]],
    ['src/app/e.ts', [{ to: 'src/gas/d.ts', runtime: false }]],
  ]);
  assert.deepEqual(runtimeCycles(fake), [['src/mf/b.ts', 'src/mf/c.ts']]);
  assert.deepEqual(runtimeCycles(fake, true), [
    ['src/mf/b.ts', 'src/mf/c.ts'],
    ['src/app/e.ts', 'src/gas/d.ts'],
  ]);
  assert.deepEqual(layerViolations(fake), ['src/core/a.ts → src/mf/b.ts', 'src/gas/d.ts → src/app/e.ts']);
  // The real graph is read, runtime imports included.
  assert.ok(GRAPH.get('src/core/protocol.ts')?.some((e) => e.to === 'src/core/ports.ts'));
  assert.ok(GRAPH.get('sim/gas/world.ts')?.some((e) => e.to === 'sim/gas/services/index.ts' && e.runtime));
});

test('no entry file imports another, except a composite entry running one whole', () => {
  assert.deepEqual(
    entryImports(GRAPH),
    [],
    'move what two entries share to src/services (or src/core when pure)',
  );
  // Each allowance is still used: one left behind would let a later import through unseen.
  for (const [pair, names] of Object.entries(ENTRY_MAY_IMPORT)) {
    const [from, to] = pair.split(' → ');
    const used = (GRAPH.get(from) ?? []).filter((e) => e.to === to).flatMap((e) => e.names ?? []);
    assert.deepEqual(
      names.filter((n) => !used.includes(n)),
      [],
      `${pair} no longer imports these: remove them from the allowances`,
    );
  }
});

test('the entry check sees an entry importing a helper from another entry', () => {
  const fake = new Map<string, Edge[]>([
    ['src/app/a.ts', [{ to: 'src/app/b.ts', runtime: true, names: ['runB', 'B_MSG'] }]],
    ['src/app/b.ts', [{ to: 'src/services/c.ts', runtime: true, names: ['helper'] }]],
    ['src/app/d.ts', [{ to: 'src/app/b.ts', runtime: false, names: ['BOptions'] }]],
  ]);
  assert.deepEqual(entryImports(fake, { 'src/app/a.ts → src/app/b.ts': ['runB'] }), [
    'src/app/a.ts → src/app/b.ts: B_MSG',
    'src/app/d.ts → src/app/b.ts: BOptions',
  ]);
  // The real graph carries the names: the scheduled run takes runPost and nothing else from posting.
  assert.deepEqual(
    GRAPH.get('src/app/scheduled.ts')?.find((e) => e.to === 'src/app/post-approved.ts')?.names,
    ['runPost'],
  );
});
