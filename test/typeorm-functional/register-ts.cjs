// Compiles .ts files on require() with TypeScript's own transpiler (no type checking), with the
// options of tsconfig.runtime.json: CommonJS with decorator metadata, as TypeORM builds its
// tests. Loaded with `node --require` before run-mocha.ts. (ts-node is not used: as an optional
// peer of typeorm it would give this workspace a second copy of TypeORM.)
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const { compilerOptions } = JSON.parse(fs.readFileSync(path.join(__dirname, 'tsconfig.runtime.json'), 'utf8'));
const options = ts.convertCompilerOptionsFromJson(compilerOptions, __dirname).options;
options.inlineSourceMap = true;
delete options.sourceMap;

require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions: options, fileName: filename });
  module._compile(outputText, filename);
};
