// Bundle for Apps Script: one classic script dist/Code.js (es2019, UTF-8), top-level stubs for
// every `global.x = …` in src/main.ts (gas-webpack-plugin), plus the manifest and HTML files.
//
// Test builds for the simulation (sim/simulate): `webpack --env mutant=NAME` (or mutant=all) builds
// dist-mutants/NAME/ with one safety mechanism switched off (src/core/safety.ts). The production
// build defines __KICHO_MUTANT__ as '' and behaves exactly as without the switch.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import CopyPlugin from 'copy-webpack-plugin';
import GasPlugin from 'gas-webpack-plugin';
import webpack from 'webpack';

const root = path.dirname(fileURLToPath(import.meta.url));

export const MUTANTS = [
  'no-lock',
  'no-flush',
  'no-claim',
  'resend-unknown',
  'no-grace',
  'no-reorder-check',
  'no-people-yield',
  'no-recent-sends',
  // The exactly-once skeleton's own pieces (test/sim-simulate/skeleton-mutants.test.ts).
  'skeleton-act-in-lock',
  'skeleton-unknown-reopens',
  'skeleton-no-recovery',
  'skeleton-no-settle-after-stop',
];

function config(mutant) {
  return {
    name: mutant || 'production',
    mode: 'production',
    context: root,
    entry: './src/main.ts',
    // eval devtools hide the global assignments from gas-webpack-plugin (fossamagna/gas-webpack-plugin#135).
    devtool: false,
    target: ['web', 'es2019'],
    output: {
      path: mutant ? path.join(root, 'dist-mutants', mutant) : path.join(root, 'dist'),
      filename: 'Code.js',
      clean: true,
    },
    resolve: { extensions: ['.ts', '.js'] },
    module: {
      rules: [
        {
          test: /\.ts$/,
          loader: 'esbuild-loader',
          options: { loader: 'ts', target: 'es2019', charset: 'utf8' },
        },
      ],
    },
    // Readable output: people debug in the Apps Script editor, and Terser would gain little.
    optimization: { minimize: false },
    performance: { hints: false },
    plugins: [
      new webpack.DefinePlugin({ __KICHO_MUTANT__: JSON.stringify(mutant || '') }),
      new GasPlugin({ include: ['src/main.ts'] }),
      new CopyPlugin({
        patterns: [
          { from: 'appsscript.json', to: '.' },
          { from: 'src/**/*.html', to: '[name][ext]', noErrorOnMissing: true },
        ],
      }),
    ],
  };
}

export default (env = {}) => {
  if (!env.mutant) return config('');
  const names = env.mutant === 'all' ? MUTANTS : String(env.mutant).split(',');
  for (const name of names) {
    if (!MUTANTS.includes(name)) throw new Error(`unknown mutant ${name}: one of ${MUTANTS.join(', ')}`);
  }
  return names.length === 1 ? config(names[0]) : names.map(config);
};
