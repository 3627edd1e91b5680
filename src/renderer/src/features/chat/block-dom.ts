/**
 * Shows an answer's rendered blocks in the live DOM without re-parsing HTML (issue 18).
 *
 * Each block is one `div.md-block` holding a copy of its sanitised nodes (markdown.ts). A
 * frozen block is inserted once and never touched again. The streaming tail is morphed: the
 * unchanged start of its DOM is kept (with its laid-out, shaped text) and only what differs is
 * changed, typically one text node growing and a few new nodes after it. Only copies of the
 * sanitised tree are ever inserted, so what the DOM holds is exactly what DOMPurify let through.
 */
import type { PlainAppend, RenderedBlock } from './markdown';

/**
 * The plain-text path's append, done to the view's copy of the block it grew from: the text
 * node at the same place, as long as it is there with the length the block's had. False when
 * not, and the caller morphs instead.
 */
function appendToCopy(element: Node, grown: PlainAppend): boolean {
  let node: Node | undefined = element;
  for (const index of grown.path) node = node?.childNodes[index];
  if (!(node instanceof Text) || node.length !== grown.length) return false;
  node.appendData(grown.text);
  return true;
}

/**
 * The list's or table's items replaced in place (renderByItems in markdown-items.ts), done to the
 * view's copy: its container's child nodes from the same place on become copies of the block's.
 * The items before them are not compared or touched. False when the copy is not as the block it
 * came from left it, and the caller morphs instead.
 */
function replaceInCopy(element: Node, block: RenderedBlock): boolean {
  const { path, before, start } = block.replaced!;
  let into: Node | undefined = element;
  let source: Node | undefined = block.source;
  for (const index of path) {
    into = into?.childNodes[index];
    source = source?.childNodes[index];
  }
  if (!into || !source || into.childNodes.length !== before || into.nodeName !== source.nodeName) return false;
  while (into.childNodes.length > start) into.lastChild!.remove();
  const doc = into.ownerDocument ?? document;
  const added = doc.createDocumentFragment();
  const kids = source.childNodes;
  for (let i = start; i < kids.length; i += 1) added.appendChild(doc.importNode(kids[i]!, true));
  into.appendChild(added);
  return true;
}

/** Same node type, and for elements the same tag and attributes: its children can be morphed. */
function sameShell(live: Node, next: Node): boolean {
  if (live.nodeType !== next.nodeType) return false;
  if (live.nodeType === Node.TEXT_NODE) return true;
  if (!(live instanceof Element) || !(next instanceof Element) || live.tagName !== next.tagName) return false;
  const names = next.getAttributeNames();
  return names.length === live.attributes.length && names.every((name) => live.getAttribute(name) === next.getAttribute(name));
}

/** Makes `live`'s children equal to `next`'s, keeping its unchanged start. */
export function morphChildren(live: Node, next: Node): void {
  const liveKids = live.childNodes;
  const nextKids = next.childNodes;
  let i = 0;
  while (i < liveKids.length && i < nextKids.length && liveKids[i]!.isEqualNode(nextKids[i]!)) i += 1;
  if (i < liveKids.length && i < nextKids.length && sameShell(liveKids[i]!, nextKids[i]!)) {
    const a = liveKids[i]!;
    const b = nextKids[i]!;
    if (a instanceof Text) {
      // A growing text node is appended to, so Blink can keep the shaping of its start.
      const value = (b as Text).data;
      if (value.startsWith(a.data)) a.appendData(value.slice(a.data.length));
      else a.data = value;
    } else morphChildren(a, b);
    i += 1;
  }
  while (liveKids.length > i) live.lastChild!.remove();
  const doc = live.ownerDocument ?? document;
  for (let j = i; j < nextKids.length; j += 1) live.appendChild(doc.importNode(nextKids[j]!, true));
}

/** The blocks of one answer inside `host`, kept in step with the renderer's output. */
export class BlockDom {
  private readonly shown: Array<{ block: RenderedBlock; element: HTMLElement }> = [];
  private frozenList: readonly RenderedBlock[] | null = null;
  /** Leading blocks shown as frozen: never looked at again while the frozen list is the same. */
  private settled = 0;

  constructor(private readonly host: HTMLElement) {}

  show(frozen: readonly RenderedBlock[], tail: readonly RenderedBlock[]): void {
    // A new frozen list is a replaced answer (a retry): every block is checked again.
    if (frozen !== this.frozenList) {
      this.frozenList = frozen;
      this.settled = 0;
    }
    const total = frozen.length + tail.length;
    // New blocks (a whole answer: all of them) go into the page in one insertion, not one each.
    let added: DocumentFragment | null = null;
    for (let i = this.settled; i < total; i += 1) {
      const block = i < frozen.length ? frozen[i]! : tail[i - frozen.length]!;
      const entry = this.shown[i];
      if (!entry) {
        const element = document.createElement('div');
        element.className = i >= frozen.length ? 'md-block md-tail' : 'md-block';
        element.append(block.content());
        added ??= document.createDocumentFragment();
        added.append(element);
        this.shown.push({ block, element });
        continue;
      }
      if (entry.block !== block) {
        const done = (block.grown?.from === entry.block && appendToCopy(entry.element, block.grown)) || (block.replaced?.from === entry.block && replaceInCopy(entry.element, block));
        if (!done) morphChildren(entry.element, block.source);
        entry.block = block;
      }
      entry.element.classList.toggle('md-tail', i >= frozen.length);
    }
    if (added) this.host.append(added);
    while (this.shown.length > total) this.shown.pop()!.element.remove();
    this.settled = frozen.length;
  }
}
