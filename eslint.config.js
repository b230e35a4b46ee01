import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Rules that catch bugs and dead code; layout is prettier's (.prettierrc.json), not the linter's.
export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      '.bundle/',
      'data/',
      'console/dist/',
      'console/src/api/schema.d.ts',
      'console/.api/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Tests read JSON answers whose shape the OpenAPI check already asserts; typing every body adds nothing.
    files: ['**/*.test.ts', 'tests/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
);
