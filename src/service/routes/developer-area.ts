/**
 * The signed-in developer area (docs/decisions/design.md §3): `/developer` signs in through the development
 * identity provider (a form, a session cookie, a CSRF token), `/developer/keys` issues (shown
 * once), lists and revokes API keys, `/developer/webhooks` shows webhooks and every delivery
 * attempt. Plain server-rendered forms, no script; every value escaped.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { route } from '../endpoint-routes';
import { userIdFor, type AuthenticatedUser } from '../auth';
import { DeveloperSessions, type DeveloperSession } from '../developer/sessions';
import { ServiceError } from '../http-errors';
import type { ServiceContext } from '../service-context';
import { TIERS } from '../surface-limits';
import type { Queryable } from '../store/database';
import type { WebhookStore } from '../webhooks/webhook-store';
import { WEBHOOK_EVENT_DESCRIPTIONS, WEBHOOK_EVENTS } from '../../shared/webhooks';
import { escapeHtml, page } from './pages';

// SECURITY: no script, no framing, forms post only to this origin.
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

type Form = Record<string, string>;

export function registerDeveloperArea(app: FastifyInstance, context: ServiceContext, webhooks: WebhookStore, db: Queryable): void {
  const sessions = new DeveloperSessions(context.now, db);

  // Forms post `application/x-www-form-urlencoded`; only /developer/ routes accept it (server.ts).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4_096 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });

  const render = (reply: FastifyReply, title: string, body: string, session: DeveloperSession | null): string => {
    reply.type('text/html; charset=utf-8').header('content-security-policy', PAGE_CSP).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
    if (session) reply.header('set-cookie', DeveloperSessions.cookie(session));
    const nav = session?.user
      ? `<p class="meta">Signed in as ${escapeHtml(session.user.email)} (${escapeHtml(session.user.tier ?? 'free')}) · <a href="/developer">Home</a> · <a href="/developer/keys">API keys</a> · <a href="/developer/webhooks">Webhooks</a> · <a href="/developer/changelog">Changelog</a></p>
<form method="post" action="/developer/sign-out">${csrfField(session)}<button type="submit">Sign out</button></form>`
      : '';
    return page(title, `${nav}${body}`);
  };

  /** The caller's live session, or a fresh anonymous one (it carries the sign-in form's CSRF token). */
  const sessionFor = async (request: FastifyRequest): Promise<DeveloperSession> => (await sessions.fromCookie(request.headers.cookie)) ?? sessions.create(null);

  /** A POST from one of our forms: a live session and its CSRF token, or 403. */
  const checkedForm = async (request: FastifyRequest): Promise<{ session: DeveloperSession; form: Form }> => {
    const session = await sessions.fromCookie(request.headers.cookie);
    const form = (request.body ?? {}) as Form;
    if (!DeveloperSessions.csrfMatches(session, form.csrf)) {
      throw new ServiceError('forbidden', 'The form is out of date or came from another site (CSRF check failed). Reload /developer and try again.');
    }
    return { session: session!, form };
  };

  const signedIn = async (request: FastifyRequest, reply: FastifyReply): Promise<{ session: DeveloperSession; user: AuthenticatedUser } | null> => {
    const session = await sessions.fromCookie(request.headers.cookie);
    if (!session?.user) {
      void reply.redirect('/developer', 303);
      return null;
    }
    return { session, user: session.user };
  };

  route(app, 'developerHome', async (request, reply) => {
    const session = await sessionFor(request);
    if (session.user) {
      return render(
        reply,
        'Developer area',
        `<h1>Developer area</h1><ul><li><a href="/developer/keys">API keys</a>: issue, list and revoke.</li><li><a href="/developer/webhooks">Webhooks</a>: deliveries and every attempt.</li><li><a href="/developer/changelog">Changelog</a></li><li><a href="/.well-known/openapi.yaml">OpenAPI 3.1 document</a></li></ul>`,
        session,
      );
    }
    if (!context.developerSignIn) {
      return render(reply, 'Developer area', `<h1>Developer area</h1><p>This service signs people in through the company's identity provider. Present its token (<code>Authorization: Bearer …</code>) to the API, or to <a href="/developer/keys">API keys</a>; the email sign-in of a local development service is off here.</p>`, session);
    }
    return render(
      reply,
      'Sign in',
      `<h1>Developer area</h1>
<p>Sign in with the development identity provider of this local service. It trusts the email you type: it is for development on this machine only.</p>
<form method="post" action="/developer/sign-in">${csrfField(session)}
<p><label>Email <input type="email" name="email" required maxlength="200" autocomplete="email"></label></p>
<p><label>Tier <select name="tier">${TIERS.map((tier) => `<option value="${tier}">${tier}</option>`).join('')}</select></label></p>
<p><button type="submit">Sign in</button></p></form>`,
      session,
    );
  });

  route(app, 'developerSignIn', async (request, reply) => {
    // SECURITY: the email sign-in trusts what is typed; with the company's identity provider it is off.
    if (!context.developerSignIn) throw new ServiceError('forbidden', "This service signs people in through the company's identity provider; the developer area's email sign-in is off.");
    const { session, form } = await checkedForm(request);
    const email = (form.email ?? '').trim();
    if (!/^[^@\s]{1,100}@[^@\s]{1,100}$/.test(email)) throw new ServiceError('invalid_request', 'Invalid field `email`: enter an email address.');
    const tier = TIERS.find((t) => t === form.tier) ?? 'free';
    await sessions.end(session);
    const fresh = await sessions.create({ id: userIdFor(email), email, via: 'jwt', tier });
    reply.header('set-cookie', DeveloperSessions.cookie(fresh));
    return reply.redirect('/developer/keys', 303);
  });

  route(app, 'developerSignOut', async (request, reply) => {
    const { session } = await checkedForm(request);
    await sessions.end(session);
    reply.header('set-cookie', DeveloperSessions.cookie(null));
    return reply.redirect('/developer', 303);
  });

  route(app, 'keysPage', async (request, reply) => {
    const session = await sessions.fromCookie(request.headers.cookie);
    // A caller presenting a credential (curl, the app) sees their keys without a browser session.
    const user = session?.user ?? context.identify(request).user;
    const howTo = `<p>Keys look like <code>ck_</code> followed by 32 letters and digits. A key is shown once when issued; the service stores only its SHA-256.</p>
<p>Present a key as <code>Authorization: Bearer ck_…</code> or <code>X-API-Key: ck_…</code>. With a JWT you can also use the API: <code>POST /api/v1/keys</code>, <code>GET /api/v1/keys</code>, <code>DELETE /api/v1/keys/{id}</code>.</p>`;
    if (!user) return render(reply, 'API keys', `<h1>API keys</h1>${howTo}<p><a href="/developer">Sign in</a> to issue and revoke keys.</p>`, null);
    return render(reply, 'API keys', `<h1>API keys</h1>${howTo}${session?.user ? issueForm(session) : ''}${await keysTable(context, user, session?.user ? session : null)}`, session?.user ? session : null);
  });

  route(app, 'keysPageIssue', async (request, reply) => {
    const { session } = await checkedForm(request);
    if (!session.user) return reply.redirect('/developer', 303);
    const { key, record } = await context.keys.issue(session.user, context.now());
    return render(
      reply,
      'New API key',
      `<h1>Your new API key</h1><p><strong>Copy it now: it is shown once.</strong> The service keeps only its SHA-256.</p>
<p><code data-testid="new-key">${escapeHtml(key)}</code></p><p class="meta">Id ${escapeHtml(record.id)}</p><p><a href="/developer/keys">Back to your keys</a></p>`,
      session,
    );
  });

  route<{ Params: { id: string } }>(app, 'keysPageRevoke', async (request, reply) => {
    const { session } = await checkedForm(request);
    if (!session.user) return reply.redirect('/developer', 303);
    await context.keys.revoke(session.user.id, request.params.id, context.now());
    return reply.redirect('/developer/keys', 303);
  });

  route(app, 'webhooksPage', async (request, reply) => {
    const signed = await signedIn(request, reply);
    if (!signed) return reply;
    const hooks = await webhooks.list(signed.user.id);
    const sections: string[] = [];
    for (const hook of hooks) {
      const rows = (await webhooks.deliveriesOf(hook.id))
        .flatMap((delivery) =>
          delivery.attempts.map(
            (attempt) =>
              `<tr><td>${escapeHtml(delivery.id)}</td><td>${escapeHtml(delivery.event)}</td><td>${attempt.attempt}</td><td>${escapeHtml(attempt.at)}</td><td>${attempt.status ?? '—'}</td><td>${attempt.ok ? 'delivered' : escapeHtml(attempt.error ?? 'failed')}</td></tr>`,
          ),
        )
        .join('');
      sections.push(`<h2>${escapeHtml(hook.url)}</h2><p class="meta">${escapeHtml(hook.id)} · ${hook.events.map(escapeHtml).join(', ')} · since ${escapeHtml(hook.createdAt)}</p>
<table><tr><th>Delivery</th><th>Event</th><th>Attempt</th><th>At</th><th>Status</th><th>Result</th></tr>${rows || '<tr><td colspan="6">No deliveries yet.</td></tr>'}</table>`);
    }
    return render(
      reply,
      'Webhooks',
      `<h1>Webhooks</h1><p>Register with <code>POST /api/v1/webhooks {url, events}</code>. The events: ${WEBHOOK_EVENTS.map((event) => `<code>${event}</code> (${escapeHtml(WEBHOOK_EVENT_DESCRIPTIONS[event].toLowerCase())})`).join(', ')}. Each delivery is retried with exponential backoff, at most 6 attempts over about an hour; every attempt is listed here.</p>${sections.join('') || '<p>No webhooks yet.</p>'}`,
      signed.session,
    );
  });
}

function csrfField(session: DeveloperSession): string {
  return `<input type="hidden" name="csrf" value="${escapeHtml(session.csrf)}">`;
}

function issueForm(session: DeveloperSession): string {
  return `<form method="post" action="/developer/keys">${csrfField(session)}<button type="submit">Issue a new key</button></form>`;
}

async function keysTable(context: ServiceContext, user: AuthenticatedUser, session: DeveloperSession | null): Promise<string> {
  const rows = (await context.keys.list(user.id))
    .map(
      (r) =>
        `<tr><td>${escapeHtml(r.id)}</td><td>…${escapeHtml(r.last4)}</td><td>${escapeHtml(r.createdAt)}</td><td>${r.revokedAt ? `revoked ${escapeHtml(r.revokedAt)}` : 'active'}</td><td>${
          session && !r.revokedAt ? `<form method="post" action="/developer/keys/${encodeURIComponent(r.id)}/revoke">${csrfField(session)}<button type="submit">Revoke</button></form>` : ''
        }</td></tr>`,
    )
    .join('');
  return `<h2>Your keys (${escapeHtml(user.email)})</h2><table><tr><th>Id</th><th>Key</th><th>Created</th><th>State</th><th></th></tr>${rows || '<tr><td colspan="5">No keys yet.</td></tr>'}</table>`;
}
