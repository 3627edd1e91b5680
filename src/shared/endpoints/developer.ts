/** Developer area: API keys, the development identity provider, developer pages and this document. */
// Registers ChangelogFeed and its parts as components.
import '../surface-schemas';
import { ApiKeyIssued, ApiKeyList, ApiKeyRevoked, DevTokenIssued, DevTokenRequest, Jwks } from '../service-schemas';
import { area, endpoint } from './define';
import { htmlResponse, jsonResponse, pathParameter, RATE_HEADER, ref } from '../openapi/common';

const KEY_ID = 'key_0f1e2d3c4b5a6978';
const pageExample = (title: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} · Retail Signal</title></head><body><h1>${title}</h1></body></html>`;

export const developerArea = area({
  tags: [
    { name: 'API keys', description: 'Long-lived `ck_…` keys for scripts and integrations (extension).' },
    { name: 'Identity', description: 'The local service\'s development identity provider: ES256 JWTs and their public keys.' },
    { name: 'Developer', description: 'Developer pages and this document.' },
  ],
  endpoints: {
    issueApiKey: endpoint({
      method: 'POST',
      path: '/api/v1/keys',
      tag: 'API keys',
      summary: 'Issue an API key',
      description: 'Issues a key for the caller; it is shown once and the service keeps only its SHA-256. Needs a bearer JWT: an API key cannot mint keys (403).',
      access: 'jwt',
      requestBody: { schema: { type: 'object' }, example: {}, required: false, description: 'Empty JSON object.' },
      responses: {
        '201': jsonResponse('Issued.', ApiKeyIssued, {
          key: 'ck_Q2x4cml0eVNpZ25hbEV4YW1wbGVLZXk1',
          id: KEY_ID,
          last4: 'eXk1',
          created_at: '2026-11-01T10:00:00.000Z',
          note: 'Shown once. Store it now; the service keeps only its SHA-256.',
        }),
      },
      errors: { 403: '`forbidden`: an API key was presented; issuing keys needs a bearer JWT.' },
    }),
    listApiKeys: endpoint({
      method: 'GET',
      path: '/api/v1/keys',
      tag: 'API keys',
      summary: 'List your API keys',
      description: 'Your keys, with their last four characters only.',
      access: 'signed-in',
      responses: {
        '200': jsonResponse('Your keys.', ApiKeyList, { keys: [{ id: KEY_ID, last4: 'eXk1', created_at: '2026-11-01T10:00:00.000Z', revoked_at: null }] }),
      },
    }),
    revokeApiKey: endpoint({
      method: 'DELETE',
      path: '/api/v1/keys/{id}',
      tag: 'API keys',
      summary: 'Revoke an API key',
      description: 'The key is refused with 401 from then on. Needs a bearer JWT.',
      access: 'jwt',
      parameters: [pathParameter('id', 'The key\'s id.', { type: 'string' }, KEY_ID)],
      responses: { '200': jsonResponse('Revoked.', ApiKeyRevoked, { id: KEY_ID, revoked_at: '2026-11-02T10:00:00.000Z' }) },
      errors: { 403: '`forbidden`: an API key was presented; revoking keys needs a bearer JWT.', 404: '`not_found`: no key with this id of yours.' },
    }),
    jwks: endpoint({
      method: 'GET',
      path: '/.well-known/jwks.json',
      tag: 'Identity',
      summary: 'Public keys of the development identity provider',
      description: 'The ES256 keys that verify the tokens this service issues.',
      access: 'anyone',
      responses: {
        '200': jsonResponse('The JWKS.', Jwks, {
          keys: [{ kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0', kid: 'b1f6c1a2-3d4e-4f50-8a9b-0c1d2e3f4a5b', alg: 'ES256', use: 'sig' }],
        }),
      },
    }),
    issueDevelopmentToken: endpoint({
      method: 'POST',
      path: '/api/v1/dev/token',
      tag: 'Identity',
      summary: 'Get a development token (local service only)',
      description:
        'Signs a bearer JWT for `email` with this service\'s own development identity provider, so an app can sign in to its ' +
        'embedded service without the command line. Served only when the service runs with `--dev-tokens` (the app\'s ' +
        'embedded service does); refused (403) for requests from a web page (any `Origin` header). Not part of the interface: ' +
        'remote services issue tokens their own way.',
      access: 'anyone',
      requestBody: { schema: DevTokenRequest, example: { email: 'analyst@example.com', ttl_s: 43200 } },
      responses: {
        '201': jsonResponse('Issued.', DevTokenIssued, {
          token: 'eyJhbGciOiJFUzI1NiIsImtpZCI6ImIxZjYifQ.eyJlbWFpbCI6ImFuYWx5c3RAZXhhbXBsZS5jb20ifQ.c2lnbmF0dXJl',
          token_type: 'Bearer',
          expires_at: '2026-11-01T22:00:00.000Z',
          subject: 'usr_2c26b46b68ffc68f',
          issuer: 'urn:retail-signal:local-dev-idp',
        }),
      },
      errors: {
        403: '`forbidden`: the request came from a web page (`Origin` header).',
        404: '`not_found`: this service does not issue development tokens (started without `--dev-tokens`).',
      },
    }),
    issueAdministratorToken: endpoint({
      method: 'POST',
      path: '/api/v1/dev/admin-token',
      onlyWith: 'adminBootstrapSecret',
      tag: 'Identity',
      summary: 'The supervising app becomes administrator (local service only)',
      description:
        'Trades the one-time secret the app put in the embedded service\'s environment (`CLARITY_ADMIN_SECRET`) for a bearer ' +
        'JWT with the claim `role: "admin"`, so the analyst manages the sources of the service their app runs. The secret is ' +
        'sent in the `X-Clarity-Admin-Secret` header and works once. Served only by a service started that way; refused (403) ' +
        'for a wrong or spent secret and for requests from a web page (any `Origin` header). `POST /api/v1/dev/token` never ' +
        'issues the admin role. Not part of the interface.',
      access: 'anyone',
      parameters: [{ name: 'X-Clarity-Admin-Secret', in: 'header', required: true, schema: { type: 'string' }, description: 'The one-time secret from the supervising app.' }],
      requestBody: { schema: { type: 'object' }, example: {}, required: false, description: 'Empty JSON object.' },
      responses: {
        '201': jsonResponse('Issued.', DevTokenIssued, {
          token: 'eyJhbGciOiJFUzI1NiIsImtpZCI6ImIxZjYifQ.eyJyb2xlIjoiYWRtaW4ifQ.c2lnbmF0dXJl',
          token_type: 'Bearer',
          expires_at: '2026-12-01T10:00:00.000Z',
          subject: 'usr_5b0c6e1a2f3d4c58',
          issuer: 'urn:retail-signal:local-dev-idp',
        }),
      },
      errors: {
        403: '`forbidden`: the secret is wrong or already used, or the request came from a web page (`Origin` header).',
      },
    }),
    changelogPage: endpoint({
      method: 'GET',
      path: '/developer/changelog',
      tag: 'Developer',
      summary: 'Changelog page',
      description: 'Changes to the interface and to this document, including the announced v2, and what is deprecated until when. Also served as a JSON Feed and an Atom feed.',
      access: 'anyone',
      responses: { '200': htmlResponse('HTML page.', pageExample('Changelog')) },
    }),
    changelogJson: endpoint({
      method: 'GET',
      path: '/developer/changelog.json',
      tag: 'Developer',
      summary: 'Changelog as a JSON Feed',
      description:
        'The changelog as a JSON Feed 1.1, newest first; each item\'s notes are also under `_retail_signal.notes`. `_retail_signal.deprecations` lists each deprecated operation with the dates its `Deprecation` and `Sunset` headers carry and what replaces it. URLs are relative to this document\'s.',
      access: 'anyone',
      responses: {
        '200': {
          description: 'JSON Feed 1.1.',
          headers: RATE_HEADER,
          content: {
            'application/feed+json': {
              schema: ref('ChangelogFeed'),
              example: {
                version: 'https://jsonfeed.org/version/1.1',
                title: 'Retail Signal changelog',
                home_page_url: '/developer/changelog',
                feed_url: '/developer/changelog.json',
                _retail_signal: {
                  deprecations: [
                    {
                      method: 'POST',
                      path: '/api/v1/research',
                      deprecated_at: '2026-11-01T00:00:00.000Z',
                      sunset_at: '2027-05-01T00:00:00.000Z',
                      replacement: { method: 'POST', path: '/api/v2/research' },
                      change: 'POST /api/v2/research answers 202 "queued" at once with a status_url to poll.',
                      link: '/developer/changelog',
                    },
                  ],
                },
                items: [
                  {
                    id: 'tag:retail-signal.local,2026:changelog:1.2.0',
                    url: '/developer/changelog#v1.2.0',
                    title: '1.2.0 (2026-11-25)',
                    content_text: '- POST /api/v1/research is deprecated.',
                    date_published: '2026-11-25T00:00:00.000Z',
                    _retail_signal: { version: '1.2.0', date: '2026-11-25', notes: ['POST /api/v1/research is deprecated.'] },
                  },
                ],
              },
            },
          },
        },
      },
    }),
    changelogAtom: endpoint({
      method: 'GET',
      path: '/developer/changelog.atom',
      tag: 'Developer',
      summary: 'Changelog as an Atom feed',
      description: 'The changelog as an Atom feed (RFC 4287), one entry per version, newest first.',
      access: 'anyone',
      responses: {
        '200': {
          description: 'Atom feed.',
          headers: RATE_HEADER,
          content: {
            'application/atom+xml': {
              schema: { type: 'string' },
              example:
                '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><id>tag:retail-signal.local,2026:changelog</id><title>Retail Signal changelog</title><updated>2026-11-25T00:00:00.000Z</updated></feed>',
            },
          },
        },
      },
    }),
    openapi: endpoint({
      method: 'GET',
      path: '/.well-known/openapi.yaml',
      tag: 'Developer',
      summary: 'This document',
      description: 'The OpenAPI 3.1 document of this service, generated from the same schemas the service and the app use.',
      access: 'anyone',
      responses: {
        '200': {
          description: 'OpenAPI 3.1 YAML.',
          headers: RATE_HEADER,
          content: { 'application/yaml': { schema: { type: 'string' }, example: 'openapi: 3.1.0\ninfo:\n  title: Retail Signal question-answering service\n' } },
        },
      },
    }),
  },
});
