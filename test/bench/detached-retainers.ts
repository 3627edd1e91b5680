/**
 * Who holds the detached DOM trees: takes a V8 heap snapshot of the page and, for each detached
 * tree, prints the shortest chain of references from a GC root to it (what a DevTools
 * "Retainers" pane shows). The soak runs it at the end when CLARITY_SOAK_RETAINERS=1.
 */
import type { CDPSession } from 'playwright-core';

export interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; edge_fields: string[]; node_types: [string[]]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

export async function takeSnapshot(cdp: CDPSession): Promise<HeapSnapshot> {
  const chunks: string[] = [];
  const onChunk = ({ chunk }: { chunk: string }): void => {
    chunks.push(chunk);
  };
  cdp.on('HeapProfiler.addHeapSnapshotChunk', onChunk);
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  cdp.off('HeapProfiler.addHeapSnapshotChunk', onChunk);
  return JSON.parse(chunks.join('')) as HeapSnapshot;
}

/** One line per detached tree (up to `limit`): root → … → the detached node, with edge names. */
export async function detachedRetainers(cdp: CDPSession, limit = 12): Promise<string[]> {
  const heap = await takeSnapshot(cdp);
  const { node_fields: nodeFields, edge_fields: edgeFields, edge_types: [edgeTypes] } = heap.snapshot.meta;
  const nodeSize = nodeFields.length;
  const edgeSize = edgeFields.length;
  const nameAt = nodeFields.indexOf('name');
  const edgeCountAt = nodeFields.indexOf('edge_count');
  const detachednessAt = nodeFields.indexOf('detachedness');
  const edgeTypeAt = edgeFields.indexOf('type');
  const edgeNameAt = edgeFields.indexOf('name_or_index');
  const edgeToAt = edgeFields.indexOf('to_node');
  const nodeCount = heap.nodes.length / nodeSize;
  const firstEdge = new Uint32Array(nodeCount + 1);
  for (let i = 0; i < nodeCount; i += 1) firstEdge[i + 1] = firstEdge[i]! + heap.nodes[i * nodeSize + edgeCountAt]! * edgeSize;

  const name = (node: number): string => heap.strings[heap.nodes[node * nodeSize + nameAt]!] ?? '?';
  const detached = (node: number): boolean =>
    detachednessAt >= 0 ? heap.nodes[node * nodeSize + detachednessAt] === 2 : name(node).startsWith('Detached ');
  const edgeLabel = (edge: number): string => {
    const type = edgeTypes[heap.edges[edge + edgeTypeAt]!]!;
    const nameOrIndex = heap.edges[edge + edgeNameAt]!;
    return type === 'element' || type === 'hidden' ? `[${nameOrIndex}]` : (heap.strings[nameOrIndex] ?? '?');
  };

  // Breadth first from the root over strong edges: each node's parent edge on a shortest path.
  const parentEdge = new Int32Array(nodeCount).fill(-1);
  const seen = new Uint8Array(nodeCount);
  const queue = new Uint32Array(nodeCount);
  let head = 0;
  let tail = 0;
  queue[tail++] = 0;
  seen[0] = 1;
  while (head < tail) {
    const node = queue[head++]!;
    // Do not walk on through detached nodes: the first one on each path is the tree's holder's target.
    if (node !== 0 && detached(node)) continue;
    for (let edge = firstEdge[node]!; edge < firstEdge[node + 1]!; edge += edgeSize) {
      if (edgeTypes[heap.edges[edge + edgeTypeAt]!] === 'weak') continue;
      const to = heap.edges[edge + edgeToAt]! / nodeSize;
      if (seen[to]) continue;
      seen[to] = 1;
      parentEdge[to] = edge;
      queue[tail++] = to;
    }
  }
  const from = new Int32Array(nodeCount).fill(-1);
  for (let node = 0; node < nodeCount; node += 1) for (let edge = firstEdge[node]!; edge < firstEdge[node + 1]!; edge += edgeSize) if (parentEdge[heap.edges[edge + edgeToAt]! / nodeSize] === edge) from[heap.edges[edge + edgeToAt]! / nodeSize] = node;

  // One line per kind of chain (indices and ids aside), the count of trees held that way first.
  const byShape = new Map<string, { line: string; count: number }>();
  for (let node = 0; node < nodeCount; node += 1) {
    if (!detached(node) || parentEdge[node] === -1 || detached(from[node]!)) continue;
    // A fragment's children are detached by nature (a sanitised answer block kept for the next
    // morph): not a tree left behind, as the soak's count also says.
    if (name(node) === 'DocumentFragment') continue;
    const chain: string[] = [];
    // The chain read from the root down: holder --edge--> held … --edge--> the detached node.
    for (let at = node; at > 0 && chain.length < 24; at = from[at]!) chain.unshift(`--${edgeLabel(parentEdge[at]!)}--> ${name(at).slice(0, 60)}`);
    const line = chain.join(' ');
    const shape = line.replace(/\[\d+\]|\d+ \/|data-turn="[^"]*"|\$[a-z0-9]+/g, '#');
    const seen = byShape.get(shape);
    if (seen) seen.count += 1;
    else byShape.set(shape, { line, count: 1 });
  }
  return [...byShape.values()].sort((a, b) => b.count - a.count).slice(0, limit).map(({ line, count }) => `${count} × ${line}`);
}
