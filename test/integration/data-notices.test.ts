/**
 * Corrupt or unwritable data is never handled silently: the app, composed as both hosts compose
 * it, tells the user what it set aside and where, and says plainly when its data folder cannot
 * be written (instead of "conversations.create failed unexpectedly").
 */
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeMainServices, type MainServices } from '../../src/main/compose-services';
import { browserHostCapabilities } from '../../src/main/desktop/host-capabilities';
import type { DataNotice } from '../../src/shared/bridge-contract';

let dir: string;
let services: MainServices;
const pushed: DataNotice[] = [];

/**
 * A folder this process cannot write into. chmod is enough for an ordinary user; root ignores
 * it, so there sysfs stands in (it refuses new files even to root).
 */
async function unwritableFolder(): Promise<string> {
  if (process.getuid?.() !== 0) {
    const folder = await mkdtemp(join(tmpdir(), 'clarity-ro-'));
    await chmod(folder, 0o500);
    return folder;
  }
  return '/sys';
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clarity-notices-'));
  await writeFile(join(dir, 'settings.json'), '{"version": 1, "service": garbage');
  await mkdir(join(dir, 'conversations'));
  await writeFile(join(dir, 'conversations', 'cnv_00000000000000aa.json'), 'not json at all');
  services = await composeMainServices({
    dataDir: dir,
    keychainService: `Clarity notices test ${process.pid}`,
    // Never started: these tests need no service.
    serviceLaunch: { command: process.execPath, args: ['-e', ''] },
    capabilities: browserHostCapabilities(),
  });
  services.host.onPush((event, payload) => {
    if (event === 'data.notice') pushed.push(payload as DataNotice);
  });
});
afterAll(async () => {
  await services.host.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('data notices', () => {
  it('says which files were set aside, and where', async () => {
    const result = await services.host.invoke('data.notices', undefined);
    expect(result.ok).toBe(true);
    const notices = (result as { value: DataNotice[] }).value;
    const settings = notices.find((n) => n.path.includes('settings.json.corrupt-'));
    expect(settings?.text).toMatch(/settings file could not be read.*default settings.*kept as .*settings\.json\.corrupt-\d+/);
    const conversations = notices.find((n) => n.path === join(dir, 'conversations'));
    expect(conversations?.text).toContain('1 conversation file could not be read');
    expect(conversations?.text).toContain('cnv_00000000000000aa.json');
    expect(conversations?.text).toContain(join(dir, 'conversations'));
    // The files really are where the notices say.
    expect(await readdir(dir)).toContainEqual(expect.stringMatching(/^settings\.json\.corrupt-\d+$/));
    expect(await readdir(join(dir, 'conversations'))).toContain('cnv_00000000000000aa.json.corrupt');
  });

  it('a data folder that cannot be written: the error says so plainly, and a notice is pushed', async () => {
    await rm(join(dir, 'conversations'), { recursive: true });
    await symlink(await unwritableFolder(), join(dir, 'conversations'));
    const result = await services.host.invoke('conversations.create', undefined);
    expect(result.ok).toBe(false);
    const message = (result as { error: { message: string } }).error.message;
    expect(message).toContain(`Clarity cannot write to its data folder ${dir}`);
    expect(message).not.toContain('failed unexpectedly');
    expect(pushed).toContainEqual(expect.objectContaining({ kind: 'unwritable', path: dir, text: message }));
  });
});
