// ESLint for the TypeScript sources, tests and scripts: the recommended rules of ESLint and typescript-eslint,
// with unused names allowed when they start with "_". Formatting is Prettier's (npm run lint:format).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'envs/', 'test/fixtures/', 'integrations/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        queueMicrotask: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        performance: 'readonly',
        structuredClone: 'readonly',
        Response: 'readonly',
        Headers: 'readonly',
        Request: 'readonly',
        WebSocket: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // tests read JSON bodies of any shape
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    // the inspector's page runs in the browser
    files: ['src/inspector/assets/**/*.js'],
    languageOptions: {
      globals: {
        document: 'readonly',
        window: 'readonly',
        location: 'readonly',
        URLSearchParams: 'readonly',
        history: 'readonly',
        navigator: 'readonly',
        EventSource: 'readonly',
        HTMLElement: 'readonly',
        Node: 'readonly',
        requestAnimationFrame: 'readonly',
        localStorage: 'readonly',
        alert: 'readonly',
        confirm: 'readonly',
      },
    },
  },
);
