// ESLint (flat config), `npm run lint`. src and test: ESLint's and typescript-eslint's
// type-aware recommended rules (no-floating-promises, no-misused-promises, await-thenable,
// no-unused-vars, ...), each file checked with its own project (tsconfig.json for src,
// test/tsconfig.json for test). bench and scripts (plain JavaScript): ESLint's recommended rules.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
  js.configs.recommended,
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: globals.node },
    rules: { 'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }] },
  },
  {
    files: ['src/**/*.ts', 'test/**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // `_name` marks a value left out on purpose (a destructured field dropped, a parameter an
      // interface requires); `{ a, ...rest }` drops `a` from rest.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Off: many async functions implement a Promise-returning port on synchronous SQLite or a
      // fake; dropping `async` there would turn a rejected promise into a synchronous throw.
      '@typescript-eslint/require-await': 'off',
      // `typeof import('m')` stays allowed: vitest's importOriginal<typeof import('m')>() idiom.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      // Off: it does not take the branded Cents (number & { __brand }) for a number.
      '@typescript-eslint/no-unsafe-unary-minus': 'off',
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests read untyped JSON (`res.json()`, parsed CSV, spawned CLI output) and assert its
      // shape with expect(); typing every body first would add nothing the assertions miss.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
