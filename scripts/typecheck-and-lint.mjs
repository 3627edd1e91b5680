#!/usr/bin/env node
/**
 * `npm test`'s type check and lint in one process (issue 49 item 3): `npm run typecheck` then
 * `npm run lint` built every TypeScript program twice (tsc's three projects, then ESLint's
 * type-aware rules building the same three again: most of lint's CPU). Here each project's
 * program is built once, its diagnostics reported as `tsc -p` reports them, and the same programs
 * handed to ESLint (typescript-eslint's `parserOptions.programs`, which looks a file up in them in
 * the order `parserOptions.project` lists them, as before). Then check-file-length, as `npm run
 * lint` runs it. Same checks, same configs; `npm run typecheck` and `npm run lint` stay for people.
 * Exit code 1 if any check failed; every check runs either way.
 *   node scripts/typecheck-and-lint.mjs
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';

/** tsconfig.json's references, in the order `npm run typecheck` and eslint.config.js's `tsProjects` list them. */
const PROJECTS = ['tsconfig.node.json', 'tsconfig.web.json', 'tsconfig.test.json'];
const root = process.cwd();
let failed = false;

const formatHost = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => root, getNewLine: () => '\n' };

/** The program `tsc -p <config>` builds, and its diagnostics (tsc reports the same ones with noEmit). */
function checkProject(config) {
  const started = Date.now();
  const parsed = ts.getParsedCommandLineOfConfigFile(resolve(root, config), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.formatDiagnostics([diagnostic], formatHost));
    },
  });
  // Parent pointers set, as typescript-eslint's own programs have them (its rules walk up from a node).
  const host = ts.createCompilerHost(parsed.options, true);
  const program = ts.createProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    projectReferences: parsed.projectReferences,
    host,
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(parsed),
  });
  const diagnostics = ts.sortAndDeduplicateDiagnostics(ts.getPreEmitDiagnostics(program));
  if (diagnostics.length > 0) process.stdout.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, formatHost));
  const errors = diagnostics.filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error).length;
  if (errors > 0) failed = true;
  console.log(`typecheck: ${config}: ${errors === 0 ? 'no errors' : `${errors} error${errors === 1 ? '' : 's'}`} (${parsed.fileNames.length} files, ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return program;
}

const programs = PROJECTS.map(checkProject);

const lintStarted = Date.now();
// Only the TypeScript files take the programs (eslint.config.js gives them `project`); others lint as they did.
const eslint = new ESLint({ overrideConfig: [{ files: ['**/*.{ts,tsx}'], languageOptions: { parserOptions: { programs } } }] });
const results = await eslint.lintFiles(['.']);
const output = await (await eslint.loadFormatter('stylish')).format(results);
if (output) process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
const lintErrors = results.reduce((sum, result) => sum + result.errorCount, 0);
if (lintErrors > 0) failed = true;
console.log(`lint: ${results.length} files, ${lintErrors === 0 ? 'no errors' : `${lintErrors} error${lintErrors === 1 ? '' : 's'}`} (${((Date.now() - lintStarted) / 1000).toFixed(1)} s)`);

const lengths = spawnSync(process.execPath, ['scripts/check-file-length.mjs'], { stdio: 'inherit' });
if (lengths.status !== 0) failed = true;

process.exit(failed ? 1 : 0);
