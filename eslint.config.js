import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Files allowed to touch Electron's IPC objects: the IPC transport and the preload. */
const ipcFiles = ['src/main/transports/ipc-transport.ts', 'src/preload/index.ts'];
/** Files allowed to import `electron` at all: the Electron entry, the IPC transport, the preload. */
const electronFiles = [...ipcFiles, 'src/main/electron/**/*.ts'];

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'bench/results/**', 'bench/harness-dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'electron',
              message: 'Only the Electron entry, the IPC transport and the preload may import electron.',
            },
          ],
        },
      ],
    },
  },
  {
    files: electronFiles,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'electron',
              importNames: ['ipcMain', 'ipcRenderer'],
              message: 'ipcMain/ipcRenderer belong to src/main/transports/ipc-transport.ts and src/preload only.',
            },
          ],
        },
      ],
    },
  },
  { files: ipcFiles, rules: { 'no-restricted-imports': 'off' } },
  {
    // SECURITY: main logs only through src/main/logging/logger.ts, which redacts credentials.
    // The browser host's CLI prints its own terminal lines (the launch URL) and is exempt.
    files: ['src/main/**/*.ts'],
    ignores: ['src/main/browser-host/cli.ts'],
    rules: { 'no-console': 'error' },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    rules: {
      // SECURITY: the renderer never reaches the network itself; everything goes through window.clarity.
      'no-restricted-globals': [
        'error',
        { name: 'fetch', message: 'The renderer talks only to window.clarity.' },
        { name: 'XMLHttpRequest', message: 'The renderer talks only to window.clarity.' },
        { name: 'EventSource', message: 'The renderer talks only to window.clarity.' },
      ],
    },
  },
);
