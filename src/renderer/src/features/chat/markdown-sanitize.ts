// DOMPurify for the service's markdown: the one configuration of what survives, and sanitising into an inert fragment (split from markdown.ts).
import DOMPurify from 'dompurify';

const SAFE_LINK = /^(?:https?:|mailto:)/i;

const PURIFY_CONFIG = {
  ALLOWED_TAGS: [
    'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'strong', 'em', 'del', 'code', 'pre', 'blockquote',
    'ul', 'ol', 'li', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'a', 'span',
  ],
  ALLOWED_ATTR: ['href', 'title', 'align', 'start'],
  // A value DOMPurify cannot read as a URL is dropped unless its attribute is listed here: without
  // this a table column's alignment and an ordered list's first number ("3. …") were lost. The
  // hook below then keeps only the values marked writes (three alignments, a number).
  ADD_URI_SAFE_ATTR: ['align', 'start'],
  ALLOW_DATA_ATTR: false,
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
};

/** The values kept of the two layout attributes, where they belong; any other use is removed. */
const CELL_ALIGN = /^(?:left|center|right)$/;
const LIST_START = /^\d{1,9}$/;

/** The same config, returning the tree itself, so chips can be added to it structurally. */
const PURIFY_FRAGMENT = { ...PURIFY_CONFIG, RETURN_DOM_FRAGMENT: true } as const;

let purify: ReturnType<typeof DOMPurify> | null = null;
/**
 * Answers' own DOMPurify instance, configured once (DOMPurify otherwise re-parses its config on
 * every call). Its own, so that no other code's setConfig/clearConfig or hooks on the shared
 * default instance can change what answers are sanitised with.
 */
function configurePurifier(): ReturnType<typeof DOMPurify> {
  if (purify) return purify;
  purify = DOMPurify(window);
  // sanitize() returns a fragment.
  purify.setConfig(PURIFY_FRAGMENT);
  purify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A') {
      const href = node.getAttribute('href') ?? '';
      if (!SAFE_LINK.test(href)) node.removeAttribute('href');
      node.removeAttribute('target');
      node.setAttribute('rel', 'noopener noreferrer');
    }
    const align = node.getAttribute('align');
    if (align !== null && !((node.tagName === 'TH' || node.tagName === 'TD') && CELL_ALIGN.test(align))) node.removeAttribute('align');
    const start = node.getAttribute('start');
    if (start !== null && !(node.tagName === 'OL' && LIST_START.test(start))) node.removeAttribute('start');
  });
  return purify;
}

/**
 * Sanitises with the answers' instance, then lets go of what it removed: DOMPurify keeps the
 * last call's removed nodes in `removed` (a parsed <body> among them), which a soak saw as a
 * detached DOM tree held for the life of the page.
 */
export function sanitize(html: string): DocumentFragment {
  const purifier = configurePurifier();
  const fragment = purifier.sanitize(html) as unknown as DocumentFragment;
  purifier.removed.length = 0;
  return fragment;
}
