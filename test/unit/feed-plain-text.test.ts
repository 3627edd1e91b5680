/**
 * Issue 43 item 3: a signal's title, summary and body are plain text whatever markup the source
 * used. Issue 44 item 1: an item without a link keeps its place (id from its guid or content).
 */
import { describe, expect, it } from 'vitest';
import { readFeedBody } from '../../src/service/feed/feed-items';
import { toPlainText } from '../../src/service/feed/plain-text';
import { extractSignal } from '../../src/service/feed/signal-extraction';

const MARKUP = /#|\*\*|\]\(|<\/?[a-z]/i;

describe('toPlainText', () => {
  it('reads Markdown: headings as sentences, bold and links as their words, list items as lines', () => {
    const text = toPlainText('# Vishal Mega Mart opens 12 stores\n\nThe **retailer** said [in a filing](https://example.in/f) it will:\n\n- open in *Pune*\n- hire 300 people\n\n## Outlook');
    expect(text).toBe('Vishal Mega Mart opens 12 stores.\nThe retailer said in a filing it will:\nopen in Pune\nhire 300 people\nOutlook.');
  });

  it('reads HTML: h1 as a sentence, paragraphs and list items as lines, entities decoded, scripts dropped', () => {
    const text = toPlainText('<h1>Results</h1><p>Trent&#8217;s revenue &amp; margin <b>grew</b>.</p><ul><li>Zudio</li><li>Westside</li></ul><script>alert(1)</script><style>p{}</style>');
    expect(text).toBe('Results.\nTrent’s revenue & margin grew.\nZudio\nWestside');
  });

  it('reads XHTML and Markdown inside HTML', () => {
    expect(toPlainText('<div xmlns="http://www.w3.org/1999/xhtml"><h2>Heading?</h2><p>Para with <a href="x">link</a></p></div>')).toBe('Heading?\nPara with link');
    expect(toPlainText('<p>## Not a tag, but **Markdown**</p>')).toBe('Not a tag, but Markdown.');
  });

  it('leaves plain text as it is (no # or * in numbers and names taken for markup)', () => {
    expect(toPlainText('AT&T is the #1 rival; 2*3*4 stores')).toBe('AT&T is the #1 rival; 2*3*4 stores');
    expect(toPlainText('snake_case_name grew 5% - Q3')).toBe('snake_case_name grew 5% - Q3');
  });

  it('leaves no source markup in a fetched signal\'s title, summary or body', () => {
    const feed = readFeedBody(
      Buffer.from(`<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><link>https://e.in/</link>
        <item><title>&lt;h1&gt;Big **news**&lt;/h1&gt;</title><link>https://e.in/1</link>
        <description># Heading\n\nSome **bold** and a [link](https://e.in/x).\n\n- one\n- two</description></item></channel></rss>`),
      'application/rss+xml',
      'https://e.in/feed.xml',
    );
    const entry = feed.entries[0]!;
    const signal = extractSignal({ sourceId: 's', url: entry.url, guid: entry.guid, pageUrl: 'https://e.in/', title: entry.title, text: entry.content || entry.summary, summary: entry.summary, published: null, fetchedAt: new Date() })!;
    for (const field of [signal.title, signal.summary, signal.body]) expect(field).not.toMatch(MARKUP);
    expect(signal.title).toBe('Big news.');
    expect(signal.body).toContain('one\ntwo');
  });

  it('leads a signal\'s summary with the item\'s first paragraph, not a heading above it (Markdown or HTML); a heading alone stays', () => {
    const read = (description: string) => {
      const feed = readFeedBody(
        Buffer.from(`<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><link>https://e.in/</link>
          <item><title>VMM plans 40 more stores in tier-2 towns</title><link>https://e.in/2</link><description>${description}</description></item></channel></rss>`),
        'application/rss+xml',
        'https://e.in/feed.xml',
      );
      const entry = feed.entries[0]!;
      return extractSignal({ sourceId: 's', url: entry.url, guid: entry.guid, pageUrl: 'https://e.in/', title: entry.title, text: entry.content || entry.summary, summary: entry.summary, summaryHeadings: entry.summaryHeadings, published: null, fetchedAt: new Date() })!;
    };
    const markdown = read('# VMM sets out its plan\n\n**Vishal Mega Mart** said on Tuesday it would open 40 more stores.');
    expect(markdown.summary).toBe('Vishal Mega Mart said on Tuesday it would open 40 more stores.');
    // The body keeps the heading: only the lead leaves it out.
    expect(markdown.body).toContain('VMM sets out its plan.');
    const html = read('&lt;h2&gt;Plan&lt;/h2&gt;&lt;p&gt;Vishal Mega Mart will open 40 stores.&lt;/p&gt;');
    expect(html.summary).toBe('Vishal Mega Mart will open 40 stores.');
    expect(read('# Stores in Bihar').summary).toBe('Stores in Bihar.');
    // Without the feed's heading lines (an input from elsewhere) the text's own markup is read.
    expect(extractSignal({ sourceId: 's', url: 'https://e.in/3', title: 'T', text: '## Outlook\n\nRevenue rose 12 per cent.', published: null, fetchedAt: new Date() })!.summary).toBe('Revenue rose 12 per cent.');
  });
});

describe('items without a link', () => {
  const body = Buffer.from(`<?xml version="1.0"?><rss version="2.0"><channel><title>Desk</title><link>https://desk.example.in/</link>
    <item><title>Zepto adds dark stores</title><guid isPermaLink="false">zepto-77</guid><description>Zepto added 40 dark stores.</description></item>
    <item><title>No guid either</title><description>Reliance Retail revenue rose 18 per cent.</description></item>
    <item><pubDate>Tue, 10 Nov 2026 09:30:00 GMT</pubDate></item></channel></rss>`);

  it('are kept with an id from the guid or the content and url null (cited by source and date); an empty one is dropped with its reason', () => {
    const feed = readFeedBody(body, 'application/rss+xml', 'https://desk.example.in/feed.xml');
    expect(feed.entries).toHaveLength(3);
    expect(feed.dropped).toEqual([{ title: '', id: null, reason: 'The item has no title, no text and no link.' }]);
    const signals = feed.entries.filter((entry) => entry.dropReason === null).map((entry) => extractSignal({ sourceId: 'desk', url: entry.url, guid: entry.guid, pageUrl: feed.link, title: entry.title, text: entry.summary, published: entry.published, fetchedAt: new Date('2026-11-12T00:00:00Z') })!);
    expect(signals.map((signal) => signal.title)).toEqual(['Zepto adds dark stores', 'No guid either']);
    for (const signal of signals) {
      expect(signal.id).toMatch(/^sig_[0-9a-f]{16}$/);
      expect(signal.url).toBeNull();
      expect(signal.canonical_url).toMatch(/^https:\/\/desk\.example\.in\/#(guid|item)=/);
    }
    expect(signals[0]!.canonical_url).not.toBe(signals[1]!.canonical_url);
    // The same item read again has the same id (stable across fetches and restarts).
    const again = readFeedBody(body, 'application/rss+xml', 'https://desk.example.in/feed.xml').entries[1]!;
    expect(extractSignal({ sourceId: 'desk', url: again.url, guid: again.guid, pageUrl: feed.link, title: again.title, text: again.summary, published: null, fetchedAt: new Date() })!.id).toBe(signals[1]!.id);
  });
});
