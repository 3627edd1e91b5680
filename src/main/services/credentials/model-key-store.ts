/**
 * The model API key of Settings › Answers (issue 28): in the OS keychain through keytar, beside
 * the service credential under its own account, from the main process only. The renderer learns
 * set/not-set and the last four characters; the key goes to the embedded service in its
 * environment (CLARITY_MODEL_API_KEY), never in settings.json, a log line or an argument.
 * Where no keychain works it is kept in memory for this session only, and the status says so.
 */
import type { ModelKeyStatus } from '../../../shared/answer-settings';
import { KEYCHAIN_SERVICE, type KeychainProbe } from './credential-store';

const ACCOUNT = 'model-api-key';

export class ModelKeyStore {
  private sessionKey: string | null = null;
  private cached: string | null | undefined;

  constructor(
    private readonly probe: KeychainProbe,
    private readonly service = KEYCHAIN_SERVICE,
  ) {}

  /** Reads the key once from the keychain, so `current` can answer without waiting. */
  async load(): Promise<string | null> {
    if (this.cached !== undefined) return this.cached;
    if (!this.probe.keychain) return this.sessionKey;
    this.cached = await this.probe.keychain.getPassword(this.service, ACCOUNT);
    return this.cached;
  }

  /** The key as last read or set; null before `load()` or when none is stored. Main only. */
  get current(): string | null {
    return this.probe.keychain ? (this.cached ?? null) : this.sessionKey;
  }

  async set(key: string): Promise<void> {
    const trimmed = key.trim();
    if (this.probe.keychain) await this.probe.keychain.setPassword(this.service, ACCOUNT, trimmed);
    else this.sessionKey = trimmed;
    this.cached = trimmed;
  }

  async clear(): Promise<void> {
    if (this.probe.keychain) await this.probe.keychain.deletePassword(this.service, ACCOUNT);
    this.sessionKey = null;
    this.cached = null;
  }

  async status(): Promise<ModelKeyStatus> {
    const key = await this.load();
    return {
      set: key !== null && key !== '',
      last4: key ? key.slice(-4) : null,
      backend: this.probe.keychain ? 'keychain' : 'session-only',
      backendDetail: this.probe.keychain
        ? this.probe.detail
        : `${this.probe.detail} The model API key is kept for this session only and is forgotten when the app quits.`,
    };
  }
}
