/**
 * Authentication for the local service (DESIGN §3):
 * - a development identity provider that signs ES256 JWTs and publishes its JWKS; its key
 *   persists in the service's data directory so `npm run service -- token` and the running
 *   service agree;
 * - API keys `ck_` + 32 base62, shown once, kept only as SHA-256 hex, presented as
 *   `Authorization: Bearer` or `X-API-Key`; revocable.
 */
import { createHash, randomInt, randomUUID } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeProtectedHeader, decodeJwt, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK, type CryptoKey } from 'jose';
import writeFileAtomic from 'write-file-atomic';
import { InvalidCredentialError, ServiceError, TwoCredentialsError } from './http-errors';

export const ISSUER = 'urn:retail-signal:local-dev-idp';
export const AUDIENCE = 'retail-signal';
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export interface AuthenticatedUser {
  /** Stable user id (the JWT subject, or the key's owner). */
  id: string;
  email: string;
  via: 'jwt' | 'api-key';
  /** The JWT claim `tier` (free, pro, team); an API key carries its issuer's tier. */
  tier?: string;
  /** The JWT claim `role`: `admin` manages the feed's sources (`token --role admin`). */
  role?: string;
}

export interface ApiKeyRecord {
  id: string;
  owner: string;
  email: string;
  sha256: string;
  last4: string;
  createdAt: string;
  revokedAt: string | null;
  tier?: string;
}

export class DevIdentityProvider {
  private constructor(
    private readonly privateKey: CryptoKey,
    private readonly publicJwk: JWK,
    private readonly publicKey: CryptoKey,
  ) {}

  /** Loads the signing key from `dir`, creating it on first use (0600). */
  static async open(dir: string | null): Promise<DevIdentityProvider> {
    const file = dir ? join(dir, 'dev-idp-key.json') : null;
    if (file) {
      try {
        const stored = JSON.parse(await readFile(file, 'utf8')) as { privateJwk: JWK; publicJwk: JWK };
        return new DevIdentityProvider(
          (await importJWK(stored.privateJwk, 'ES256')) as CryptoKey,
          stored.publicJwk,
          (await importJWK(stored.publicJwk, 'ES256')) as CryptoKey,
        );
      } catch {
        // No key yet (or unreadable): make one below.
      }
    }
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const publicJwk = { ...(await exportJWK(publicKey)), kid: randomUUID(), alg: 'ES256', use: 'sig' };
    if (file && dir) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await writeFileAtomic(file, JSON.stringify({ privateJwk: await exportJWK(privateKey), publicJwk }), { mode: 0o600 });
    }
    return new DevIdentityProvider(privateKey, publicJwk, publicKey);
  }

  jwks(): { keys: JWK[] } {
    return { keys: [this.publicJwk] };
  }

  async issueToken(email: string, ttlSeconds = 12 * 3600, issuedAtMs = Date.now(), claims: { tier?: string; role?: string } = {}): Promise<string> {
    const issuedAt = Math.floor(issuedAtMs / 1000);
    return new SignJWT({ email, ...(claims.tier ? { tier: claims.tier } : {}), ...(claims.role ? { role: claims.role } : {}) })
      .setProtectedHeader({ alg: 'ES256', kid: this.publicJwk.kid })
      .setSubject(userIdFor(email))
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + ttlSeconds)
      .sign(this.privateKey);
  }

  async verify(token: string, now: number): Promise<AuthenticatedUser> {
    try {
      const { payload } = await jwtVerify(token, this.publicKey, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['ES256'],
        currentDate: new Date(now),
      });
      if (!payload.sub) throw new Error('no subject');
      const tier = typeof payload.tier === 'string' ? { tier: payload.tier } : {};
      const role = typeof payload.role === 'string' ? { role: payload.role } : {};
      return { id: payload.sub, email: typeof payload.email === 'string' ? payload.email : payload.sub, via: 'jwt', ...tier, ...role };
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ERR_JWT_EXPIRED') throw new InvalidCredentialError('The bearer token has expired. Get a new one.');
      if (this.signedByAnotherKey(token)) {
        throw new InvalidCredentialError(
          'The bearer token was signed by a different key: was it issued by another data directory? ' +
            'Get a new one from this service (Settings: Get a development token, or `npm run service -- token --data-dir <this service\'s data directory>`).',
        );
      }
      throw new InvalidCredentialError('The bearer token is not valid for this service.');
    }
  }

  /** Our issuer, another key: typically a token from a service started with another data directory. */
  private signedByAnotherKey(token: string): boolean {
    try {
      const header = decodeProtectedHeader(token);
      return decodeJwt(token).iss === ISSUER && header.alg === 'ES256' && header.kid !== this.publicJwk.kid;
    } catch {
      return false;
    }
  }
}

export function userIdFor(email: string): string {
  return `usr_${createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 16)}`;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

export class ApiKeyStore {
  private readonly byHash = new Map<string, ApiKeyRecord>();
  private readonly byId = new Map<string, ApiKeyRecord>();

  /** Keys survive restarts as their SHA-256 records only (never the key itself). */
  constructor(private readonly file: string | null = null) {}

  static async open(dir: string | null): Promise<ApiKeyStore> {
    const store = new ApiKeyStore(dir ? join(dir, 'api-keys.json') : null);
    if (store.file) {
      try {
        for (const record of JSON.parse(await readFile(store.file, 'utf8')) as ApiKeyRecord[]) {
          store.byHash.set(record.sha256, record);
          store.byId.set(record.id, record);
        }
      } catch {
        // No keys yet.
      }
    }
    return store;
  }

  private persist(): void {
    if (!this.file) return;
    const file = this.file;
    void mkdir(join(file, '..'), { recursive: true, mode: 0o700 })
      .then(() => writeFileAtomic(file, JSON.stringify([...this.byId.values()]), { mode: 0o600 }))
      .catch(() => undefined);
  }

  /** Issues a key. The plain key is returned once and never stored. */
  issue(owner: AuthenticatedUser, now: number): { key: string; record: ApiKeyRecord } {
    let key = 'ck_';
    for (let i = 0; i < 32; i += 1) key += BASE62[randomInt(BASE62.length)];
    const record: ApiKeyRecord = {
      id: `key_${randomUUID().replace(/-/g, '').slice(0, 16)}`,
      owner: owner.id,
      email: owner.email,
      sha256: sha256(key),
      last4: key.slice(-4),
      createdAt: new Date(now).toISOString(),
      revokedAt: null,
      ...(owner.tier ? { tier: owner.tier } : {}),
    };
    this.byHash.set(record.sha256, record);
    this.byId.set(record.id, record);
    this.persist();
    return { key, record };
  }

  list(owner: string): ApiKeyRecord[] {
    return [...this.byId.values()].filter((record) => record.owner === owner);
  }

  revoke(owner: string, id: string, now: number): ApiKeyRecord {
    const record = this.byId.get(id);
    if (!record || record.owner !== owner) throw new ServiceError('not_found', `No key ${id} for this user.`);
    record.revokedAt ??= new Date(now).toISOString();
    this.persist();
    return record;
  }

  verify(key: string): AuthenticatedUser {
    const record = this.byHash.get(sha256(key));
    if (!record) throw new InvalidCredentialError('The API key is not valid for this service.');
    if (record.revokedAt) throw new InvalidCredentialError('The API key has been revoked.');
    return { id: record.owner, email: record.email, via: 'api-key', ...(record.tier ? { tier: record.tier } : {}) };
  }
}

/**
 * Reads the caller's credential: `X-API-Key`, or `Authorization: Bearer` holding either an
 * API key or a JWT. No credential → anonymous (null). A bad one → 401 `invalid_token`, never
 * anonymous. Both headers → 400 (RFC 6750 §3.1: one method per request), so a client that sends
 * its credential twice learns why instead of guessing which one counted.
 */
export async function authenticate(
  headers: Record<string, string | string[] | undefined>,
  idp: DevIdentityProvider,
  keys: ApiKeyStore,
  now: number,
): Promise<AuthenticatedUser | null> {
  const apiKey = present(headers['x-api-key']);
  const authorization = present(headers.authorization);
  if (apiKey && authorization) throw new TwoCredentialsError();
  if (apiKey) return keys.verify(apiKey);
  if (!authorization) return null;
  const match = /^Bearer\s+(\S+)$/i.exec(authorization);
  if (!match) throw new InvalidCredentialError('Use `Authorization: Bearer <token>`.');
  const token = match[1]!;
  if (token.startsWith('ck_')) return keys.verify(token);
  return idp.verify(token, now);
}

const present = (value: string | string[] | undefined): string | null => {
  const text = (Array.isArray(value) ? value.join(',') : value)?.trim();
  return text ? text : null;
};
