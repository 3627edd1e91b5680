/**
 * The model API key of Settings › Answers (issue 28): in the OS keychain through keytar, beside
 * the service credential under its own account, from the main process only. The renderer learns
 * set/not-set and the last four characters; the key goes to the embedded service in its
 * environment (CLARITY_MODEL_API_KEY), never in settings.json, a log line or an argument.
 * Where no keychain works it is kept in memory for this session only, and the status says so.
 */
import type { ModelKeyStatus } from '../../../shared/answer-settings';
import { KEYCHAIN_SERVICE, KeychainSecret, type KeychainProbe } from './credential-store';

const ACCOUNT = 'model-api-key';

export class ModelKeyStore {
  private readonly secret: KeychainSecret;

  constructor(probe: KeychainProbe, service = KEYCHAIN_SERVICE) {
    this.secret = new KeychainSecret(probe, ACCOUNT, service);
  }

  /** Reads the key once from the keychain, so `current` can answer without waiting. */
  load(): Promise<string | null> {
    return this.secret.read();
  }

  /** The key as last read or set; null before `load()` or when none is stored. Main only. */
  get current(): string | null {
    return this.secret.current;
  }

  set(key: string): Promise<void> {
    return this.secret.set(key);
  }

  clear(): Promise<void> {
    return this.secret.clear();
  }

  async status(): Promise<ModelKeyStatus> {
    const key = await this.load();
    return {
      set: key !== null && key !== '',
      last4: key ? key.slice(-4) : null,
      backend: this.secret.backend,
      backendDetail: this.secret.backendDetail('The model API key'),
    };
  }
}
