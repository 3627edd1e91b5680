/**
 * Authentication for the local service (docs/decisions/design.md §3):
 * - a development identity provider that signs ES256 JWTs and publishes its JWKS; its key
 *   persists in the service's data directory so `npm run service -- token` and the running
 *   service agree;
 * - API keys `ck_` + 32 base62, shown once, kept only as SHA-256 hex (in the service's database), presented as
 *   `Authorization: Bearer` or `X-API-Key`; revocable.
 */
import { createHash, randomInt, randomUUID } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRemoteJWKSet, decodeProtectedHeader, decodeJwt, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK, type CryptoKey } from 'jose';
import writeFileAtomic from 'write-file-atomic';
import { InvalidCredentialError, ServiceError, TwoCredentialsError } from './http-errors';
import type { Database } from './store/database';

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

export class DevIdentityProvider implements TokenVerifier {
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
          (await importJWK(stored.privateJwk, 'ES256', { extractable: true })) as CryptoKey,
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

  /**
   * The signing key kept in the database, shared by every process of a team server. The first
   * start imports the data directory's key file (so tokens made earlier keep working) or makes
   * one; the file is kept beside the database for `npm run service -- token`.
   */
  static async openShared(db: Database, dir: string | null): Promise<DevIdentityProvider> {
    const stored = async (): Promise<{ private_jwk: JWK; public_jwk: JWK } | undefined> =>
      (await db.query<{ private_jwk: JWK; public_jwk: JWK }>('SELECT private_jwk, public_jwk FROM identity_keys ORDER BY created_at, kid LIMIT 1'))[0];
    let row = await stored();
    if (!row) {
      const local = await DevIdentityProvider.open(dir);
      await db.query('INSERT INTO identity_keys (kid, private_jwk, public_jwk, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (kid) DO NOTHING', [
        local.publicJwk.kid,
        JSON.stringify(await exportJWK(local.privateKey)),
        JSON.stringify(local.publicJwk),
        new Date().toISOString(),
      ]);
      row = (await stored())!;
    }
    const provider = new DevIdentityProvider((await importJWK(row.private_jwk, 'ES256')) as CryptoKey, row.public_jwk, (await importJWK(row.public_jwk, 'ES256')) as CryptoKey);
    if (dir) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await writeFileAtomic(join(dir, 'dev-idp-key.json'), JSON.stringify({ privateJwk: row.private_jwk, publicJwk: row.public_jwk }), { mode: 0o600 });
    }
    return provider;
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

/** Whatever checks a bearer JWT: the development provider, or the company's (`--jwks-url`). */
export interface TokenVerifier {
  verify(token: string, now: number): Promise<AuthenticatedUser>;
}

export interface CompanyIdentitySettings {
  issuer: string;
  audience: string;
  jwksUrl: string;
}

/**
 * The company's identity provider, for a team server: JWTs signed by a key in its JWKS, with its
 * issuer and this service's audience. The key set is cached and fetched again when a token names
 * a key it does not hold (at most every 30 s), so a newly published key works within a minute.
 */
/** Asymmetric signatures only: a company provider's keys are public keys. */
const COMPANY_JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

export class CompanyIdentityProvider implements TokenVerifier {
  private constructor(
    private readonly settings: CompanyIdentitySettings,
    private readonly keys: ReturnType<typeof createRemoteJWKSet>,
  ) {}

  /** Checks at start that the JWKS answers with keys; a plain-sentence error when it does not. */
  static async open(settings: CompanyIdentitySettings): Promise<CompanyIdentityProvider> {
    let url: URL;
    try {
      url = new URL(settings.jwksUrl);
    } catch {
      throw new ConfigurationError(`--jwks-url is not a URL: ${settings.jwksUrl}.`);
    }
    // SECURITY: whoever can change the keys can mint tokens, so they come over TLS (loopback aside).
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname))) {
      throw new ConfigurationError(`--jwks-url must be an https:// URL (plain http only on this machine's loopback), got ${url.origin}.`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(10_000), redirect: 'error' });
      const body = (await response.json()) as { keys?: unknown };
      if (!response.ok || !Array.isArray(body.keys) || body.keys.length === 0) throw new Error(`HTTP ${response.status}, no keys`);
    } catch (error) {
      throw new ConfigurationError(`The JWKS at ${url.origin}${url.pathname} did not answer with signing keys (${error instanceof Error ? error.message : String(error)}): check --jwks-url.`);
    }
    return new CompanyIdentityProvider(settings, createRemoteJWKSet(url, { cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000, timeoutDuration: 5_000 }));
  }

  async verify(token: string, now: number): Promise<AuthenticatedUser> {
    try {
      const { payload } = await jwtVerify(token, this.keys, { issuer: this.settings.issuer, audience: this.settings.audience, algorithms: COMPANY_JWT_ALGORITHMS, currentDate: new Date(now) });
      if (!payload.sub) throw new Error('no subject');
      const email = typeof payload.email === 'string' ? payload.email : payload.sub;
      return {
        id: `usr_${createHash('sha256').update(`${this.settings.issuer}\u0000${payload.sub}`).digest('hex').slice(0, 16)}`,
        email,
        via: 'jwt',
        ...(typeof payload.tier === 'string' ? { tier: payload.tier } : {}),
        // The identity provider's `role: "admin"` claim manages the feed's sources (docs/team-server.md).
        ...(typeof payload.role === 'string' ? { role: payload.role } : {}),
      };
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_JWT_EXPIRED') throw new InvalidCredentialError('The bearer token has expired. Sign in again.');
      throw new InvalidCredentialError("The bearer token is not valid for this service: it must be signed by your company's identity provider for this audience.");
    }
  }
}

/** A start-up setting the service cannot work with: one plain sentence for the operator. */
export class ConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigurationError';
  }
}

export function userIdFor(email: string): string {
  return `usr_${createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 16)}`;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

interface ApiKeyRow {
  id: string;
  owner: string;
  email: string;
  sha256: string;
  last4: string;
  created_at: string;
  revoked_at: string | null;
  tier: string | null;
}

const keyRecord = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  owner: row.owner,
  email: row.email,
  sha256: row.sha256,
  last4: row.last4,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
  ...(row.tier ? { tier: row.tier } : {}),
});

/** API keys in the service's database, as their SHA-256 only (never the key itself). */
export class ApiKeyStore {
  constructor(private readonly db: Database) {}

  /** Issues a key; resolves once its record is stored. The plain key is returned once and never stored. */
  async issue(owner: AuthenticatedUser, now: number): Promise<{ key: string; record: ApiKeyRecord }> {
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
    await this.db.query('INSERT INTO api_keys (id, owner, email, sha256, last4, created_at, revoked_at, tier) VALUES ($1, $2, $3, $4, $5, $6, NULL, $7)', [
      record.id,
      record.owner,
      record.email,
      record.sha256,
      record.last4,
      record.createdAt,
      owner.tier ?? null,
    ]);
    return { key, record };
  }

  async list(owner: string): Promise<ApiKeyRecord[]> {
    return (await this.db.query<ApiKeyRow>('SELECT * FROM api_keys WHERE owner = $1 ORDER BY created_at, id', [owner])).map(keyRecord);
  }

  async revoke(owner: string, id: string, now: number): Promise<ApiKeyRecord> {
    const [row] = await this.db.query<ApiKeyRow>('UPDATE api_keys SET revoked_at = coalesce(revoked_at, $3) WHERE id = $1 AND owner = $2 RETURNING *', [id, owner, new Date(now).toISOString()]);
    if (!row) throw new ServiceError('not_found', `No key ${id} for this user.`);
    return keyRecord(row);
  }

  async verify(key: string): Promise<AuthenticatedUser> {
    const [row] = await this.db.query<ApiKeyRow>('SELECT * FROM api_keys WHERE sha256 = $1', [sha256(key)]);
    if (!row) throw new InvalidCredentialError('The API key is not valid for this service.');
    if (row.revoked_at) throw new InvalidCredentialError('The API key has been revoked.');
    return { id: row.owner, email: row.email, via: 'api-key', ...(row.tier ? { tier: row.tier } : {}) };
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
  idp: TokenVerifier,
  keys: ApiKeyStore,
  now: number,
): Promise<AuthenticatedUser | null> {
  const apiKey = present(headers['x-api-key']);
  const authorization = present(headers.authorization);
  if (apiKey && authorization) throw new TwoCredentialsError();
  if (apiKey) return await keys.verify(apiKey);
  if (!authorization) return null;
  const match = /^Bearer\s+(\S+)$/i.exec(authorization);
  if (!match) throw new InvalidCredentialError('Use `Authorization: Bearer <token>`.');
  const token = match[1]!;
  if (token.startsWith('ck_')) return await keys.verify(token);
  return idp.verify(token, now);
}

const present = (value: string | string[] | undefined): string | null => {
  const text = (Array.isArray(value) ? value.join(',') : value)?.trim();
  return text ? text : null;
};
