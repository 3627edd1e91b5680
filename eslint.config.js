import js from '@eslint/js';
import globals from 'globals';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/** src/main/services/, one folder per capability (docs/architecture.md, "Main's services"). */
const mainServiceFolders = ['conversations', 'credentials', 'data-folder', 'export', 'health', 'library', 'links', 'local-service', 'research', 'service-client', 'settings', 'sources', 'watchlist'];

/** src/service/'s folders (docs/architecture.md, "The local service"). */
const serviceFolders = ['answers', 'corpus', 'developer', 'feed', 'follows', 'forecast', 'research', 'retrieval', 'routes', 'store', 'webhooks', 'world'];

/**
 * The process boundaries (docs/architecture.md), enforced: each folder may import only from
 * the folders listed, and nothing may import in a circle.
 */
const layerZones = [
  { target: './src/renderer', from: ['./src/main', './src/preload', './src/service'], message: 'The renderer imports only src/shared and itself; it reaches main through window.clarity.' },
  { target: './src/preload', from: ['./src/main', './src/renderer', './src/service'], message: 'The preload imports only src/shared.' },
  { target: './src/shared', from: ['./src/main', './src/preload', './src/renderer', './src/service'], message: 'src/shared imports nothing outside itself.' },
  { target: './src/service', from: ['./src/main', './src/preload', './src/renderer'], message: 'The local service never imports main or the renderer (it runs in its own process).' },
  { target: './src/main', from: ['./src/renderer', './src/preload'], message: 'Main does not import renderer or preload code; shared code goes in src/shared.' },
  // The local service's world (src/service/world: signal and source types, the gazetteer and the
  // entity registry, the fiscal calendar) is what answers, retrieval, follows, feed and routes know;
  // the generated sample (src/service/corpus) is one producer of signals, loaded only at start-up.
  {
    target: serviceFolders.filter((folder) => folder !== 'corpus').map((folder) => `./src/service/${folder}`),
    from: './src/service/corpus',
    message: 'Only start-up code at src/service/\'s top level (signal-store, server, cli) loads the sample: import types, names and dates from src/service/world.',
  },
  {
    target: './src/service/world',
    from: './src/service',
    except: ['./world'],
    message: 'src/service/world is the service\'s ground floor: it imports only itself and src/shared.',
  },
  // Inside main: the services (one folder per capability) sit below the bridge and the hosts.
  {
    target: './src/main/services',
    from: ['./src/main/bridge', './src/main/transports', './src/main/electron', './src/main/browser-host', './src/main/desktop', './src/main/compose-services.ts'],
    message: 'src/main/services/* is below the bridge and the hosts: it imports src/shared, logging and other capability folders only; what a host can do arrives as HostCapabilities.',
  },
  // The service client and the data folder are the services' bottom layer: the capabilities use them, never the reverse.
  ...['service-client', 'data-folder'].map((bottom) => ({
    target: `./src/main/services/${bottom}`,
    from: mainServiceFolders.filter((folder) => folder !== bottom).map((folder) => `./src/main/services/${folder}`),
    message: `src/main/services/${bottom} is a bottom layer: it imports no other capability folder.`,
  })),
];

/** TypeScript projects for the type-aware rules (one per kind of code, see tsconfig.json). */
const tsProjects = ['./tsconfig.node.json', './tsconfig.web.json', './tsconfig.test.json'];

/** Files allowed to touch Electron's IPC objects: the IPC transport and the preload. */
const ipcFiles = ['src/main/transports/ipc-transport.ts', 'src/preload/index.ts'];
/** Files allowed to import `electron` at all: the Electron entry, the IPC transport, the preload. */
const electronFiles = [...ipcFiles, 'src/main/electron/**/*.ts'];

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'bench/results/**', 'bench/harness-dist/**', 'bench/harness-dist-*/**'] },
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
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] })],
      // no-cycle reads the imported files: it needs to know they are TypeScript.
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: layerZones }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // Code that runs in a page or is bundled for one: no Node built-ins.
    files: ['src/shared/**/*.ts', 'src/renderer/**/*.{ts,tsx}', 'src/preload/**/*.ts'],
    plugins: { 'import-x': importX },
    rules: { 'import-x/no-nodejs-modules': 'error' },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      // src/shared runs in every process, the renderer included: no Node globals either.
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'src/shared is platform-free; pass the value in from main or the service.' },
        { name: 'Buffer', message: 'src/shared is platform-free; use Uint8Array.' },
        { name: 'require', message: 'src/shared is platform-free.' },
        { name: '__dirname', message: 'src/shared is platform-free.' },
      ],
    },
  },
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { project: tsProjects, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // JSX handlers may be async (React ignores their return value); everything else may not.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
    },
  },
  {
    files: ['src/renderer/**/*.tsx', 'src/renderer/**/*.ts', 'test/**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    // No fixed sleeps in e2e tests: wait on state (locators, expect.poll, an event) or control time (page.clock).
    files: ['test/e2e/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { property: 'waitForTimeout', message: 'No fixed sleeps: wait on state (locators, expect.poll, an event) or control time (page.clock).' },
      ],
    },
  },
  // Accessibility of the renderer's JSX (issue 16): the plugin's recommended rules.
  { ...jsxA11y.flatConfigs.recommended, files: ['src/renderer/**/*.tsx'] },
);
