/**
 * App settings as one JSON file in the data directory. Writes are atomic (temp file, fsync,
 * rename); a corrupt or unreadable file is set aside and defaults are used, so the app
 * always starts. Settings never hold a secret.
 */
import { readFile, rename } from 'node:fs/promises';
import { ensureDataFolder } from '../data-folder/data-notices';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import { CredentialPresentation, DisplaySetting, ServiceSetting, SourceHost, ThemeChoice, TrustedHost, type Settings } from '../../../shared/bridge-contract';
import { DEFAULT_DISPLAY } from '../../../shared/format';
import { AnswerSetting } from '../../../shared/answer-settings';

const SETTINGS_VERSION = 1;

const StoredSettings = z.object({
  version: z.literal(SETTINGS_VERSION),
  service: ServiceSetting,
  credentialPresentation: CredentialPresentation,
  // Added with issue #14; files written before it have none.
  trustedHosts: z.array(z.string()).default([]),
  // Added with issue #16; absent means "follow the system".
  theme: ThemeChoice.optional(),
  // Added with issue #16.
  display: DisplaySetting.default(DEFAULT_DISPLAY),
  // Added with issue 28 (Settings › Answers); read on its own below, so a bad entry loses only itself.
  answers: z.unknown().optional(),
  // Added with issue 47 (intranet sources with consent); each host read on its own.
  sourceHosts: z.array(z.unknown()).optional(),
  localServicePort: z.unknown().optional(),
});

export const DEFAULT_SETTINGS: Settings = { service: { mode: 'local' }, credentialPresentation: 'bearer', trustedHosts: [], display: DEFAULT_DISPLAY };

export class SettingsStore {
  private current: Settings = DEFAULT_SETTINGS;
  /** Set when the file on disk could not be read and was set aside. */
  recoveredFrom: string | null = null;

  private constructor(private readonly file: string) {}

  static async open(dataDir: string): Promise<SettingsStore> {
    await ensureDataFolder(dataDir);
    const store = new SettingsStore(join(dataDir, 'settings.json'));
    await store.load();
    return store;
  }

  get(): Settings {
    return this.current;
  }

  async update(patch: Partial<Settings>): Promise<Settings> {
    const next: Settings = { ...this.current, ...patch };
    await writeFileAtomic(this.file, `${JSON.stringify({ version: SETTINGS_VERSION, ...next }, null, 2)}\n`, { mode: 0o600, fsync: true });
    this.current = next;
    return next;
  }

  private async load(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return; // first run
    }
    try {
      const parsed = StoredSettings.parse(JSON.parse(text));
      this.current = { service: parsed.service, credentialPresentation: parsed.credentialPresentation, trustedHosts: parsed.trustedHosts.flatMap((host) => {
        const read = TrustedHost.safeParse(host);
        return read.success ? [read.data] : [];
      }), display: parsed.display, ...(parsed.theme ? { theme: parsed.theme } : {}) };
      const answers = AnswerSetting.safeParse(parsed.answers);
      if (answers.success) this.current.answers = answers.data;
      const hosts = (parsed.sourceHosts ?? []).flatMap((host) => {
        const read = SourceHost.safeParse(host);
        return read.success ? [read.data] : [];
      });
      if (hosts.length > 0) this.current.sourceHosts = [...new Set(hosts)];
      const port = z.number().int().min(1024).max(65_535).safeParse(parsed.localServicePort);
      if (port.success) this.current.localServicePort = port.data;
    } catch {
      const aside = `${this.file}.corrupt-${Date.now()}`;
      await rename(this.file, aside).catch(() => undefined);
      this.recoveredFrom = aside;
    }
  }
}
