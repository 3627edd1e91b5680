/** Sharing an answer, and the server-rendered pages (escaped HTML). */
import { SessionVisibility, SessionVisibilityRequest } from '../service-schemas';
import { area, endpoint } from './define';
import { htmlResponse, jsonResponse, pathParameter } from '../openapi/common';

const SESSION_ID = 'ses_8c1d2e3f4a5b6c7d';
const SLUG = 'zudio-stores-pune-8c1d2e';
const pageExample = (title: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} · Retail Signal</title></head><body><h1>${title}</h1></body></html>`;

export const pagesArea = area({
  tags: [
    { name: 'Sharing', description: 'Make a session public so each turn has a readable page (extension).' },
    { name: 'Pages', description: 'Server-rendered HTML pages; every value in them is escaped.' },
  ],
  endpoints: {
    setSessionVisibility: endpoint({
      method: 'POST',
      path: '/api/v1/sessions/{id}/visibility',
      tag: 'Sharing',
      summary: 'Make a session public or private (extension)',
      description: 'A public session is readable at `/ask/{session_slug}/{turn}`. Only the caller who asked (same user, or same IP when anonymous) may change it.',
      access: 'anyone',
      parameters: [pathParameter('id', 'The `session_id` of an answer.', { type: 'string' }, SESSION_ID)],
      requestBody: { schema: SessionVisibilityRequest, example: { public: true } },
      responses: {
        '200': jsonResponse('Updated.', SessionVisibility, { session_id: SESSION_ID, session_slug: SLUG, public: true, turns: 2, url: `/ask/${SLUG}/2` }),
      },
      errors: { 404: '`not_found`: no session with this id of yours.' },
    }),
    sharedAnswerPage: endpoint({
      method: 'GET',
      path: '/ask/{slug}/{turn}',
      tag: 'Pages',
      summary: 'Page of one turn of a public session',
      description: 'The question, the answer and its sources. A private session is indistinguishable from a missing one (404).',
      access: 'anyone',
      parameters: [
        pathParameter('slug', 'The `session_slug`.', { type: 'string' }, SLUG),
        pathParameter('turn', 'The turn, counting from 1.', { type: 'integer', minimum: 1 }, 1),
      ],
      responses: { '200': htmlResponse('The answer with its sources.', pageExample('How many stores did Zudio open in Pune?')) },
      errors: { 404: '`not_found`: no public session at this address, or no such turn.' },
    }),
    signalPage: endpoint({
      method: 'GET',
      path: '/signal/{slug}',
      tag: 'Pages',
      summary: 'Page of one signal',
      description: 'The signal with its source, date, type, entities, metrics and the source\'s health.',
      access: 'anyone',
      parameters: [pathParameter('slug', 'The signal\'s `slug`.', { type: 'string' }, 'zudio-opens-14-stores-across-pune-3f9a0c')],
      responses: { '200': htmlResponse('The signal.', pageExample('Zudio opens 14 stores across Pune')) },
      errors: { 404: '`not_found`: no signal with this slug.' },
    }),
  },
});
