import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: Object.fromEntries(
        ['process', 'console', 'performance', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'Buffer', 'URL', 'structuredClone', 'queueMicrotask', 'global', 'AbortController', 'AbortSignal'].map((g) => [g, 'readonly']),
      ),
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      // TypeORM types entity targets and decorator targets as `Function`; we follow its API.
      '@typescript-eslint/no-unsafe-function-type': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The TypeORM functional-test harness loads TypeScript through a CommonJS require hook.
    files: ['test/typeorm-functional/**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
