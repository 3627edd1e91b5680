/**
 * The outside world, on loopback: a real HTTP server that plays news sites, newsrooms and
 * regulators for the feed's tests. It serves one feed of each kind (RSS 2.0, RDF, Atom, JSON Feed
 * 1.1, an HTML listing with article pages, a PDF) and every fault the feed must survive. A test
 * publishes new items with `publish()` and makes a feed start failing with `fail()`.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import zlib from 'node:zlib';
import iconv from 'iconv-lite';
import PDFDocument from 'pdfkit';
import { LABELLED_ITEMS, OPEN_WORLD_ITEMS } from './open-world-feed';

export interface FixtureItem {
  id: string;
  title: string;
  /** HTML allowed (the scripts fixture puts hostile markup here). */
  html: string;
  /** ISO date, or null for an undated item. */
  published: string | null;
  /** Path of the item's page on the fixture (defaults to /news/<id>.html). */
  path?: string;
}

export type FixtureFault = 'timeout' | 'reset' | 404 | 410 | 500 | 503;

export interface FixtureWeb {
  url: string;
  /** `host:port` of the server (the SSRF tests allow exactly this one). */
  host: string;
  /** Adds an item at the top of a feed (`rss`, `rdf`, `atom`, `json`, `news` listing). */
  publish(feed: FeedName, item: FixtureItem): void;
  /** Makes a path fail from now on (null: works again). */
  fail(path: string, fault: FixtureFault | null): void;
  /** Requests seen, by path (robots.txt included), with their User-Agent and conditional headers. */
  requests: Array<{ path: string; userAgent: string; ifNoneMatch: string | null; at: number }>;
  close(): Promise<void>;
}

export type FeedName = 'rss' | 'rdf' | 'atom' | 'json' | 'news' | 'open-world';

const T0 = Date.parse('2026-11-20T06:00:00Z');
const iso = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();

/** Retail stories, told by more than one outlet (the clustering tests rely on that). */
const STORIES: FixtureItem[] = [
  { id: 'dmart-q2', title: 'Avenue Supermarts Q2 revenue rises 14% to ₹14,050 crore', html: '<p>D-Mart operator Avenue Supermarts reported revenue of ₹14,050 crore for Q2 FY27, up 14% year-on-year, and added 8 new stores, taking its network to 387 stores.</p>', published: iso(0) },
  { id: 'zepto-funding', title: 'Zepto raises ₹3,200 crore in fresh funding to expand dark stores', html: '<p>Quick commerce firm Zepto raised ₹3,200 crore led by existing investors and plans 250 new dark stores across Bengaluru, Mumbai and Pune.</p>', published: iso(30) },
  { id: 'zudio-opening', title: 'Zudio opens 40 stores in Tamil Nadu and Kerala', html: '<p>Trent’s value fashion brand Zudio opened 40 stores in Chennai, Coimbatore and Kochi in October, its fastest quarter of expansion in the south.</p>', published: iso(60) },
  { id: 'nykaa-results', title: 'Nykaa net profit jumps 60% as beauty sales grow', html: '<p>FSN E-Commerce, which runs Nykaa, said revenue grew 24% to ₹2,350 crore, with beauty gross merchandise value up 28%.</p>', published: iso(90) },
];

const ATOM_STORIES: FixtureItem[] = [
  // The same D-Mart story as the RSS feed, worded a little differently (near-duplicate).
  { id: 'dmart-q2-atom', title: 'Avenue Supermarts Q2 revenue rises 14% to ₹14,050 crore', html: '<p>D-Mart operator Avenue Supermarts reported revenue of ₹14,050 crore for Q2 FY27, up 14% year-on-year, and added 8 new stores, taking its network to 387 stores in total.</p>', published: iso(5) },
  { id: 'blinkit-bengaluru', title: 'Blinkit crosses 1,000 dark stores with Bangalore push', html: '<p>Eternal’s Blinkit said it now runs 1,000 dark stores after adding 120 in Bangalore and Hyderabad.</p>', published: iso(45) },
];

const DUPE: FixtureItem = { id: 'dupe-a', title: 'More Retail adds 20 stores in Nagpur', html: '<p>Same GUID as its neighbours.</p>', published: iso(2) };

const RDF_STORIES: FixtureItem[] = [{ id: 'fdi-notice', title: 'DPIIT notifies revised FDI rules for single-brand retail', html: '<p>The government notified revised FDI rules for single-brand retail trading, easing local sourcing norms for retailers in Maharashtra and Karnataka.</p>', published: iso(20) }];

const JSON_STORIES: FixtureItem[] = [{ id: 'croma-partnership', title: 'Croma partners with Tata Neu for electronics loyalty', html: '<p>Infiniti Retail’s Croma announced a partnership with Tata Neu to offer loyalty points across 550 stores in Delhi and Gurgaon.</p>', published: iso(15) }];

const NEWS_STORIES: FixtureItem[] = [
  { id: 'reliance-trends-closure', title: 'Reliance Trends closes 25 stores in West Bengal', html: '<p>Reliance Retail is closing 25 Reliance Trends stores in Kolkata and across West Bengal as it reworks its fashion format.</p>', published: iso(10) },
  { id: 'tanishq-expansion', title: 'Tanishq expands into Gulf markets', html: '<p>Titan’s Tanishq said it would expand into Gulf markets with 10 stores, while growing 18% in India.</p>', published: iso(70) },
];

export async function startFixtureWeb(): Promise<FixtureWeb> {
  const feeds: Record<FeedName, FixtureItem[]> = { rss: [...STORIES], rdf: [...RDF_STORIES], atom: [...ATOM_STORIES], json: [...JSON_STORIES], news: [...NEWS_STORIES], 'open-world': [...OPEN_WORLD_ITEMS] };
  const faults = new Map<string, FixtureFault>();
  const requests: FixtureWeb['requests'] = [];
  const sockets = new Set<Socket>();
  const pdf = await makePdf('Retailers Association of India: Festive retail report', 'Retail sales during Diwali grew 22% year-on-year, led by apparel and jewellery in Mumbai and Jaipur. Kalyan Jewellers and Senco Gold reported record footfall.');
  // 64 MB of spaces gzip to about 64 KB: the decompressed cap must stop it, not the wire cap.
  const bomb = zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { level: 9 });
  const huge = rss('Ten thousand items', Array.from({ length: 10_000 }, (_, i) => ({ id: `bulk-${i}`, title: `Bulk retail item ${i} on Kirana stores`, html: `<p>Item ${i} about grocery in Lucknow.</p>`, published: iso(-i) })), '');
  let base = '';

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fixture');
    const path = url.pathname;
    requests.push({ path, userAgent: String(request.headers['user-agent'] ?? ''), ifNoneMatch: (request.headers['if-none-match'] as string | undefined) ?? null, at: Date.now() });
    const fault = faults.get(path);
    if (fault === 'timeout') return; // never answers
    if (fault === 'reset') return request.socket.destroy();
    if (typeof fault === 'number') {
      if (fault === 503) response.setHeader('retry-after', '120');
      response.writeHead(fault, { 'content-type': 'text/plain' }).end(`fault ${fault}`);
      return;
    }
    const send = (status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): void => {
      response.writeHead(status, { 'content-type': type, ...headers }).end(body);
    };
    /** A document with an ETag: a matching If-None-Match is a 304. */
    const sendTagged = (type: string, body: string): void => {
      const etag = `"${hash(body)}"`;
      if (request.headers['if-none-match'] === etag) return void response.writeHead(304, { etag }).end();
      send(200, type, body, { etag, 'last-modified': new Date(T0).toUTCString() });
    };

    switch (path) {
      case '/robots.txt':
        return send(200, 'text/plain', 'User-agent: *\nDisallow: /private/\n');
      case '/rss.xml':
        return sendTagged('application/rss+xml; charset=utf-8', rss('Retail Desk', feeds.rss, base));
      case '/rdf.xml':
        return sendTagged('application/rdf+xml', rdf(feeds.rdf, base));
      // Retailers and people the gazetteer does not know (issue 43; open-world-feed.ts).
      case '/open-world.xml':
        return sendTagged('application/rss+xml; charset=utf-8', rss('Open world desk', feeds['open-world'], base));
      case '/open-world-labelled.xml':
        return sendTagged('application/rss+xml; charset=utf-8', rss('Open world wire', LABELLED_ITEMS, base));
      case '/atom.xml':
        return sendTagged('application/atom+xml', atom(feeds.atom, base));
      case '/feed.json':
        return sendTagged('application/feed+json', jsonFeed(feeds.json, base));
      case '/news/':
        return sendTagged('text/html; charset=utf-8', listing(feeds.news));
      case '/report.pdf':
        return send(200, 'application/pdf', pdf);
      case '/pdf-feed.xml':
        return sendTagged('application/rss+xml', rss('Reports', [{ id: 'report', title: 'Festive retail report (PDF)', html: 'The full report.', published: iso(100), path: '/report.pdf' }], base));
      case '/private/feed.xml':
        return sendTagged('application/rss+xml', rss('Disallowed', feeds.rss, base));
      case '/404.xml':
        return send(404, 'text/plain', 'not found');
      case '/410.xml':
        return send(410, 'text/plain', 'gone');
      case '/500.xml':
        return send(500, 'text/plain', 'boom');
      case '/503.xml':
        return send(503, 'text/plain', 'busy', { 'retry-after': '120' });
      case '/slow.xml':
        return; // never answers
      case '/reset.xml':
        return request.socket.destroy();
      case '/loop-a':
        return send(302, 'text/plain', '', { location: '/loop-b' });
      case '/loop-b':
        return send(302, 'text/plain', '', { location: '/loop-a' });
      case '/to-loopback':
        // Another loopback host than the fixture's own: the SSRF guard must refuse this hop.
        return send(302, 'text/plain', '', { location: `http://localhost:${(server.address() as AddressInfo).port}/rss.xml` });
      case '/big.xml': {
        // 50 MB, chunked (no Content-Length): the cap must stop it while streaming.
        response.writeHead(200, { 'content-type': 'application/rss+xml' });
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        let sent = 0;
        const pump = (): void => {
          while (sent < 50 && !response.destroyed) {
            sent += 1;
            if (!response.write(chunk)) return void response.once('drain', pump);
          }
          if (!response.destroyed) response.end();
        };
        response.on('error', () => undefined);
        return pump();
      }
      case '/bomb.xml':
        return send(200, 'application/rss+xml', bomb, { 'content-encoding': 'gzip' });
      case '/laughs.xml':
        return send(200, 'application/rss+xml', BILLION_LAUGHS);
      case '/no-links.xml':
        // Issue 44: items a reader keeps without a link of their own, and one with nothing in it.
        return send(200, 'application/rss+xml', `<?xml version="1.0"?><rss version="2.0"><channel><title>Circulars</title><link>${base}/circulars/</link>
<item><title>Nilgiri Threads opens flagship in Coimbatore</title><guid isPermaLink="false">nt-2026-11</guid><author>desk@circulars.example (Lakshmi Iyer)</author><description># Nilgiri Threads opens\n\nThe **retailer** opened a 12,000 sq ft store.</description><pubDate>Tue, 10 Nov 2026 09:30:00 GMT</pubDate></item>
<item><title>Kovai Mart adds 6 stores</title><description>&lt;h1&gt;Kovai Mart&lt;/h1&gt;&lt;p&gt;Six new stores in Tiruppur.&lt;/p&gt;</description></item>
<item><pubDate>Wed, 11 Nov 2026 09:30:00 GMT</pubDate></item></channel></rss>`);
      case '/malformed.xml':
        return send(200, 'application/rss+xml', '<?xml version="1.0"?><rss version="2.0"><channel><title>Broken</title><item><title>Unclosed</item></channel>');
      case '/html-as-feed.xml':
        return send(200, 'text/html', '<!DOCTYPE html><html><head><title>Not a feed</title></head><body><p>Hello</p></body></html>');
      case '/huge.xml':
        return send(200, 'application/rss+xml', huge);
      case '/dupes.xml':
        return sendTagged('application/rss+xml', rss('Dupes', [DUPE, { ...DUPE }, { ...DUPE, id: 'dupe-b', title: 'More Retail adds 20 stores in Pune' }], base, { sameGuid: true }));
      case '/dates.xml':
        return sendTagged('application/rss+xml', rss('Dates', [
          { id: 'undated', title: 'Spencer’s Retail reviews its Hyderabad stores', html: '<p>No date on this one.</p>', published: null },
          { id: 'future', title: 'V-Mart plans 60 stores in Uttar Pradesh', html: '<p>Dated in 2031 by mistake.</p>', published: '2031-01-01T00:00:00Z' },
        ], base));
      case '/cp1252.xml':
        return send(200, 'application/rss+xml', iconv.encode(rss('Café Retail', [{ id: 'cafe', title: 'Café chain’s “big” Pune launch – 12 outlets', html: '<p>Pune café openings… 12 outlets.</p>', published: iso(3) }], base, { encoding: 'windows-1252' }), 'windows-1252'));
      case '/scripts.xml':
        return sendTagged('application/rss+xml', rss('Hostile', [{ id: 'hostile', title: 'MedPlus opens 30 pharmacies in Telangana', html: '<p onclick="steal()">MedPlus opened 30 stores.<script>document.cookie="stolen"</script><img src=x onerror="alert(1)"><style>p{color:red}</style> Growth continues.</p>', published: iso(8) }], base));
      default:
        break;
    }
    const article = /^\/news\/([\w-]+)\.html$/.exec(path)?.[1];
    const item = article ? Object.values(feeds).flat().find((candidate) => candidate.id === article) : undefined;
    if (item) return send(200, 'text/html; charset=utf-8', page(item));
    send(404, 'text/plain', 'not found');
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    host: `127.0.0.1:${port}`,
    requests,
    publish(feed, item) {
      feeds[feed].unshift(item);
    },
    fail(path, fault) {
      if (fault === null) faults.delete(path);
      else faults.set(path, fault);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const itemUrl = (item: FixtureItem, base: string): string => `${base}${item.path ?? `/news/${item.id}.html`}`;

function rss(title: string, items: FixtureItem[], base: string, options: { sameGuid?: boolean; encoding?: string } = {}): string {
  const body = items
    .map((item) => `<item><title>${escape(item.title)}</title><link>${itemUrl(item, base)}?utm_source=rss#top</link><guid isPermaLink="false">${options.sameGuid ? 'same-guid' : item.id}</guid>${item.published ? `<pubDate>${new Date(item.published).toUTCString()}</pubDate>` : ''}<description>${escape(item.html)}</description></item>`)
    .join('');
  return `<?xml version="1.0" encoding="${options.encoding ?? 'utf-8'}"?><rss version="2.0"><channel><title>${escape(title)}</title><link>${base}/</link>${body}</channel></rss>`;
}

function rdf(items: FixtureItem[], base: string): string {
  const body = items.map((item) => `<item rdf:about="${itemUrl(item, base)}"><title>${escape(item.title)}</title><link>${itemUrl(item, base)}</link><description>${escape(item.html)}</description>${item.published ? `<dc:date>${item.published}</dc:date>` : ''}</item>`).join('');
  return `<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel rdf:about="${base}/rdf.xml"><title>Regulator releases</title><link>${base}/</link></channel>${body}</rdf:RDF>`;
}

function atom(items: FixtureItem[], base: string): string {
  const body = items.map((item) => `<entry><id>urn:fixture:${item.id}</id><title>${escape(item.title)}</title><link rel="alternate" href="${itemUrl(item, base)}"/>${item.published ? `<published>${item.published}</published><updated>${item.published}</updated>` : ''}<summary type="html">${escape(item.html)}</summary></entry>`).join('');
  return `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Business Daily Retail</title><id>urn:fixture:atom</id><updated>${iso(0)}</updated>${body}</feed>`;
}

function jsonFeed(items: FixtureItem[], base: string): string {
  return JSON.stringify({
    version: 'https://jsonfeed.org/version/1.1',
    title: 'Company newsroom',
    items: items.map((item) => ({ id: item.id, url: itemUrl(item, base), title: item.title, content_html: item.html, ...(item.published ? { date_published: item.published } : {}) })),
  });
}

function listing(items: FixtureItem[]): string {
  return `<!DOCTYPE html><html><head><title>Newsroom</title></head><body><nav><a href="/about.html">About</a><a href="/careers.html">Careers</a></nav><main><h1>Latest news</h1><ul>${items.map((item) => `<li><a href="/news/${item.id}.html">${escape(item.title)}</a></li>`).join('')}</ul><a href="https://elsewhere.example/story">Elsewhere</a></main><footer><a href="/privacy.html">Privacy</a></footer></body></html>`;
}

function page(item: FixtureItem): string {
  const filler = ' The company shared the update with analysts and investors, and said more details would follow in its next quarterly call. Industry watchers expect the move to shape competition in the segment through the festive season.';
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${escape(item.title)} | Newsroom</title>${item.published ? `<meta property="article:published_time" content="${item.published}">` : ''}<script>window.tracker = "TRACKING-CODE";</script><style>body{font:16px serif}</style></head><body><nav><a href="/">Home</a> <a href="/news/">News</a> Navigation menu text</nav><article><h1>${escape(item.title)}</h1>${item.html}<p>${filler}</p><p>${filler}</p></article><footer>Copyright footer text</footer></body></html>`;
}

function hash(text: string): string {
  let value = 2166136261;
  for (let i = 0; i < text.length; i += 1) value = Math.imul(value ^ text.charCodeAt(i), 16777619);
  return (value >>> 0).toString(16);
}

function makePdf(title: string, text: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ info: { Title: title } });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.fontSize(18).text(title).moveDown().fontSize(12).text(text);
    doc.end();
  });
}

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<rss version="2.0"><channel><title>&lol9;</title><item><title>&lol9;</title><link>http://127.0.0.1/x</link></item></channel></rss>`;
