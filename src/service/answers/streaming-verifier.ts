// The verifier on a stream: text goes in as it arrives, each sentence comes out once judged (kept, marked or removed).
import type { ClaimVerifier, SentenceVerdict, UnsupportedClaims, Verification } from './claim-verifier';
import { normaliseCitations, openMarkerAt, removeMarkers } from './citation-markers';
import { segment, type Piece } from './sentences';

/** What the route does with one judged sentence. */
export type VerifiedPiece =
  | { kind: 'kept'; text: string; verdict: SentenceVerdict }
  | { kind: 'removed'; text: string; verdict: SentenceVerdict }
  | { kind: 'marked'; text: string; verdict: SentenceVerdict };

export interface StreamOptions {
  /**
   * The extractive composer's own text: its lead-ins ("… across 4 cities (the sum of the
   * openings below):") rest on the citations of the run or list they introduce. A model's
   * sentences never borrow: each is judged on its own markers.
   */
  runs?: boolean;
  /** Text the composer marked as structure (headings, connectives, help): never a claim. */
  structure?: readonly string[];
}

const MARKED_PREFIX = '⚠ _Not supported by the cited signals:_ ';

/**
 * Verifies an answer as it is written. Only the sentence in progress is held back (and, for
 * the extractive composer's lead-ins, until the run they introduce completes).
 */
export class StreamingVerifier {
  private text = '';
  private emittedTo = 0;
  private readonly pieces: VerifiedPiece[] = [];
  private lastCitations: { block: number; ids: string[] } = { block: -1, ids: [] };
  private readonly structure: string[];
  /** Milliseconds spent judging each sentence (the benchmark's verify_ms). */
  readonly timings: number[] = [];

  constructor(
    private readonly verifier: ClaimVerifier,
    private readonly mode: UnsupportedClaims = 'remove',
    private readonly options: StreamOptions = {},
  ) {
    this.structure = (options.structure ?? []).map(plainStructure).filter(Boolean);
  }

  push(delta: string): VerifiedPiece[] {
    this.text += delta;
    return this.drain(false);
  }

  end(): VerifiedPiece[] {
    return this.drain(true);
  }

  get all(): readonly VerifiedPiece[] {
    return this.pieces;
  }

  summary(): Verification {
    const judged = this.pieces.filter((piece) => piece.verdict.text.trim() !== '' && !/^\s*(?:\|[\s:|-]*)$/.test(piece.verdict.text));
    return {
      sentences: judged.length,
      supported: judged.filter((piece) => piece.verdict.ok).length,
      removed: judged.filter((piece) => !piece.verdict.ok).map((piece) => ({ text: piece.verdict.text, reason: piece.verdict.reason ?? 'not supported' })),
    };
  }

  /** The answer as kept: removed sentences out, dropped ids' markers out, every marker canonical. */
  content(): string {
    return this.pieces.map((piece) => (piece.kind === 'removed' ? '' : piece.text)).join('');
  }

  private isStructure(text: string): boolean {
    if (this.structure.length === 0) return false;
    const plainText = plainStructure(text);
    return plainText !== '' && this.structure.some((marked) => marked.includes(plainText));
  }

  private drain(final: boolean): VerifiedPiece[] {
    if (this.emittedTo >= this.text.length) return [];
    // Every citation form becomes the canonical marker before the text is cut into sentences,
    // so `(sig_a)` after a full stop belongs to its sentence as `[sig_a]` does.
    const tail = this.text.slice(this.emittedTo);
    const normalised = normaliseCitations(tail, this.verifier.ids);
    if (normalised !== tail) this.text = this.text.slice(0, this.emittedTo) + normalised;
    const open = final ? -1 : openMarkerAt(this.text);
    const visible = open > this.emittedTo ? this.text.slice(0, open) : open === -1 ? this.text : '';
    if (visible.length <= this.emittedTo) return [];
    // The whole text is segmented each time, so block numbers stay stable across deltas.
    const pieces = segment(visible, final).filter((piece) => piece.start >= this.emittedTo);
    const out: VerifiedPiece[] = [];
    let index = 0;
    while (index < pieces.length) {
      const piece = pieces[index]!;
      if (!piece.complete) break;
      // A sentence cut short by a marker still open at the end is not complete yet.
      if (open !== -1 && piece.end >= open) break;
      const text = this.text.slice(piece.start, piece.end);
      let borrowed: string[] = [];
      const own = this.verifier.citationsOf(text);
      if (this.options.runs && piece.kind === 'sentence' && own.valid.length === 0 && own.dropped.length === 0) {
        const run = this.runCitations(pieces, index, text, final);
        if (run === null) break; // wait for more text
        borrowed = run;
      }
      const started = performance.now();
      const verdict = this.verifier.judge(text, piece.kind, borrowed, this.isStructure(text));
      this.timings.push(performance.now() - started);
      if (verdict.citations.length > 0 && piece.kind === 'sentence') this.lastCitations = { block: piece.block, ids: verdict.citations };
      const cleaned = verdict.dropped.length > 0 ? removeMarkers(text, verdict.dropped) : text;
      const result: VerifiedPiece = verdict.ok
        ? { kind: 'kept', text: cleaned, verdict }
        : this.mode === 'mark'
          ? { kind: 'marked', text: markUnsupported(cleaned), verdict }
          : { kind: 'removed', text: /\n$/.test(text) && piece.start > 0 && this.text[piece.start - 1] !== '\n' ? '\n' : '', verdict };
      out.push(result);
      this.pieces.push(result);
      this.emittedTo = piece.end;
      index += 1;
    }
    return out;
  }

  /**
   * The extractive composer's run: the citation that closes it in the same block, the list a
   * colon introduces, else the one before it in the block; null while that may still arrive.
   */
  private runCitations(pieces: Array<Piece & { complete: boolean }>, index: number, text: string, final: boolean): string[] | null {
    const piece = pieces[index]!;
    let ahead = index + 1;
    let found: string[] | null = null;
    let blockEnded = false;
    while (ahead < pieces.length) {
      const next = pieces[ahead]!;
      if (next.block !== piece.block || next.kind !== 'sentence') {
        blockEnded = true;
        break;
      }
      if (!next.complete) break;
      const cites = this.verifier.citationsOf(this.text.slice(next.start, next.end)).valid;
      if (cites.length > 0) {
        found = cites;
        break;
      }
      ahead += 1;
    }
    if (!found && !blockEnded && !(final && ahead >= pieces.length)) return null;
    if (!found && /:\W*$/.test(text.trimEnd())) {
      // "…, the sum of the openings below:" is checked against the list it introduces.
      const list = this.listCitations(pieces, ahead, final);
      if (list === null) return null;
      found = list.length > 0 ? list : null;
    }
    return found ?? (this.lastCitations.block === piece.block ? this.lastCitations.ids : []);
  }

  /** Citations of the list starting at `from`; null while the list may still grow. */
  private listCitations(pieces: Array<Piece & { complete: boolean }>, from: number, final: boolean): string[] | null {
    const ids: string[] = [];
    let listBlock = -1;
    for (let index = from; index < pieces.length; index += 1) {
      const piece = pieces[index]!;
      if (!piece.complete) return null;
      const text = this.text.slice(piece.start, piece.end);
      const item = /^\s*(?:[-*+]|\d+[.)])\s/.test(text) && (index === 0 || this.text[piece.start - 1] === '\n');
      if (!item && piece.block !== listBlock) return ids;
      if (item) listBlock = piece.block;
      for (const id of this.verifier.citationsOf(text).valid) if (!ids.includes(id)) ids.push(id);
    }
    return final ? ids : null;
  }
}

/** Structure text compared without markdown, list marks or spacing. */
function plainStructure(text: string): string {
  return text.replace(/[*_`#>]/g, '').replace(/^\s*[-+]\s/, '').replace(/\s+/g, ' ').trim();
}

function markUnsupported(text: string): string {
  const match = /^(\s*(?:[-*+]\s+|\d+[.)]\s+)?)([\s\S]*?)(\s*)$/.exec(text)!;
  return `${match[1]}${MARKED_PREFIX}${match[2]}${match[3]}`;
}

/** Verifies a whole answer at once (the eval, tests, a JSON check). */
export function verifyAnswer(
  content: string,
  verifier: ClaimVerifier,
  mode: UnsupportedClaims = 'remove',
  options: StreamOptions = {},
): { content: string; verification: Verification; verdicts: SentenceVerdict[] } {
  const stream = new StreamingVerifier(verifier, mode, options);
  stream.push(content);
  stream.end();
  return { content: tidy(stream.content()), verification: stream.summary(), verdicts: stream.all.map((piece) => piece.verdict) };
}

/** After removals: no runs of blank lines, no empty list items. */
export function tidy(content: string): string {
  return content.replace(/\n{3,}/g, '\n\n').replace(/^\s*[-*+]\s*$/gm, '').replace(/\n{3,}/g, '\n\n');
}
