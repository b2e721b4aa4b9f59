// Bundle for Apps Script: one classic script dist/Code.js (es2019, UTF-8), top-level stubs for
// every `global.x = …` in src/main.ts (gas-webpack-plugin), plus the manifest and HTML files.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import CopyPlugin from 'copy-webpack-plugin';
import GasPlugin from 'gas-webpack-plugin';

const root = path.dirname(fileURLToPath(import.meta.url));

export default {
  mode: 'production',
  context: root,
  entry: './src/main.ts',
  // eval devtools hide the global assignments from gas-webpack-plugin (fossamagna/gas-webpack-plugin#135).
  devtool: false,
  target: ['web', 'es2019'],
  output: { path: path.join(root, 'dist'), filename: 'Code.js', clean: true },
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
    new GasPlugin({ include: ['src/main.ts'] }),
    new CopyPlugin({
      patterns: [
        { from: 'appsscript.json', to: '.' },
        { from: 'src/**/*.html', to: '[name][ext]', noErrorOnMissing: true },
      ],
    }),
  ],
};
