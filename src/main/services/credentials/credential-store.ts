/**
 * The credential (JWT or API key) lives in the OS keychain through keytar, from the main
 * process only. The renderer learns set/not-set, the kind and the last four characters.
 * Where no keychain works, the secret is kept in memory for this session only and the
 * status says so; nothing is ever written in plain text.
 */
import type { CredentialKind, CredentialPresentation, CredentialStatus } from '../../../shared/bridge-contract';
import type { Credential } from '../service-client/api-client';

/** The part of keytar's API this app uses (keytar and @github/keytar share it). */
export interface Keychain {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

export interface KeychainProbe {
  keychain: Keychain | null;
  detail: string;
}

export const KEYCHAIN_SERVICE = 'Clarity Desktop';
const ACCOUNT = 'retail-signal-credential';

/**
 * Loads keytar and proves the OS keychain answers. keytar is an optional dependency: where it
 * did not build, or no Secret Service runs, the app says why and goes on without it.
 */
export async function probeKeychain(service = KEYCHAIN_SERVICE): Promise<KeychainProbe> {
  let keytar: Keychain;
  try {
    const module = (await import('@github/keytar')) as unknown as Keychain & { default?: Keychain };
    keytar = module.default ?? module;
  } catch (error) {
    return { keychain: null, detail: `keytar is not installed or did not build (${firstLine(error)}).` };
  }
  try {
    await keytar.getPassword(service, '__probe__');
    return { keychain: keytar, detail: `OS keychain via keytar (${process.platform === 'linux' ? 'Secret Service' : process.platform === 'darwin' ? 'macOS Keychain' : 'Windows Credential Manager'}).` };
  } catch (error) {
    return { keychain: null, detail: `The OS keychain did not answer (${firstLine(error)}).` };
  }
}

function firstLine(error: unknown): string {
  // SECURITY: only the first line of a library error, which never contains the secret.
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 160);
}

export function credentialKind(secret: string): CredentialKind {
  if (/^ck_[A-Za-z0-9]{32}$/.test(secret)) return 'api-key';
  if (/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(secret)) return 'jwt';
  return 'token';
}

/**
 * One secret under its own keychain account, or, where no keychain works, in memory for this
 * session only. Read once, then answered from memory. Main process only.
 */
export class KeychainSecret {
  private sessionSecret: string | null = null;
  private cached: string | null | undefined;

  constructor(
    private readonly probe: KeychainProbe,
    private readonly account: string,
    private readonly service = KEYCHAIN_SERVICE,
  ) {}

  get backend(): 'keychain' | 'session-only' {
    return this.probe.keychain ? 'keychain' : 'session-only';
  }

  /** Where the secret is kept, said plainly; `what` names it ("The credential"). */
  backendDetail(what: string): string {
    return this.probe.keychain ? this.probe.detail : `${this.probe.detail} ${what} is kept for this session only and is forgotten when the app quits.`;
  }

  async read(): Promise<string | null> {
    if (this.cached !== undefined) return this.cached;
    if (!this.probe.keychain) return this.sessionSecret;
    this.cached = await this.probe.keychain.getPassword(this.service, this.account);
    return this.cached;
  }

  /** The secret as last read or set; null before `read()` or when none is stored. */
  get current(): string | null {
    return this.probe.keychain ? (this.cached ?? null) : this.sessionSecret;
  }

  async set(secret: string): Promise<void> {
    const trimmed = secret.trim();
    if (this.probe.keychain) await this.probe.keychain.setPassword(this.service, this.account, trimmed);
    else this.sessionSecret = trimmed;
    this.cached = trimmed;
  }

  async clear(): Promise<void> {
    if (this.probe.keychain) await this.probe.keychain.deletePassword(this.service, this.account);
    this.sessionSecret = null;
    this.cached = null;
  }
}

export class CredentialStore {
  private readonly secret: KeychainSecret;

  constructor(
    probe: KeychainProbe,
    private readonly presentation: () => CredentialPresentation,
    service = KEYCHAIN_SERVICE,
  ) {
    this.secret = new KeychainSecret(probe, ACCOUNT, service);
  }

  get backend(): CredentialStatus['backend'] {
    return this.secret.backend;
  }

  async status(): Promise<CredentialStatus> {
    const secret = await this.secret.read();
    return {
      set: secret !== null,
      last4: secret ? secret.slice(-4) : null,
      kind: secret ? credentialKind(secret) : null,
      presentAs: this.presentation(),
      backend: this.backend,
      backendDetail: this.secret.backendDetail('The credential'),
    };
  }

  set(secret: string): Promise<void> {
    return this.secret.set(secret);
  }

  clear(): Promise<void> {
    return this.secret.clear();
  }

  /** For the API client only; never crosses the bridge. */
  async credential(): Promise<Credential | null> {
    const secret = await this.secret.read();
    return secret ? { secret, presentAs: this.presentation() } : null;
  }
}
