/**
 * The theme choice (issue 16) is kept with the app's settings in a real temp directory: it
 * survives a reopen, older files without it mean "follow the system", and the bridge schema
 * accepts only the three choices.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SettingsStore } from '../../src/main/services/settings/settings-store';
import { BridgeMethods } from '../../src/shared/bridge-contract';

describe('theme setting', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'clarity-theme-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is absent (follow the system) until chosen, then kept across a reopen', async () => {
    const store = await SettingsStore.open(dir);
    expect(store.get().theme).toBeUndefined();
    await store.update({ theme: 'dark' });
    const reopened = await SettingsStore.open(dir);
    expect(reopened.get().theme).toBe('dark');
    expect(reopened.get().service).toEqual({ mode: 'local' });
    expect(JSON.parse(await readFile(join(dir, 'settings.json'), 'utf8')).theme).toBe('dark');
  });

  it('reads a settings file written before the theme existed', async () => {
    await writeFile(join(dir, 'settings.json'), JSON.stringify({ version: 1, service: { mode: 'local' }, credentialPresentation: 'x-api-key', trustedHosts: [] }));
    const store = await SettingsStore.open(dir);
    expect(store.recoveredFrom).toBeNull();
    expect(store.get().theme).toBeUndefined();
    expect(store.get().credentialPresentation).toBe('x-api-key');
  });

  it('accepts only system, light or dark over the bridge', () => {
    const schema = BridgeMethods['settings.setTheme'].args;
    for (const theme of ['system', 'light', 'dark']) expect(schema.safeParse({ theme }).success).toBe(true);
    for (const theme of ['sepia', '', null]) expect(schema.safeParse({ theme }).success).toBe(false);
  });
});
