/**
 * `npx tsx test/bench/heap-diff.ts <before.heapsnapshot> <after.heapsnapshot> [turnsAdded]`:
 * where the memory that is new in `after` hangs. Each object of `after` whose snapshot id
 * `before` did not have (V8 keeps an object's id for its life) is charged to its nearest
 * dominator that `before` already had: the old object that alone keeps it alive (the store's
 * turns array, a cache's Map, a closure's context…). Printed: those holders, largest first, with
 * the shortest path from a GC root to each, and the new bytes by kind (type or constructor).
 * The soak writes its two snapshots with CLARITY_SOAK_SNAPSHOT_DIR (soak-bench.ts).
 */
import { readFile } from 'node:fs/promises';
import type { HeapSnapshot } from './detached-retainers';

interface Graph {
  heap: HeapSnapshot;
  count: number;
  nodeSize: number;
  edgeSize: number;
  firstEdge: Uint32Array;
  ids: Uint32Array;
  selfSize: Float64Array;
  type(node: number): string;
  name(node: number): string;
}

export function graphOf(heap: HeapSnapshot): Graph {
  const { node_fields: nodeFields, edge_fields: edgeFields, node_types: nodeTypes } = heap.snapshot.meta;
  const nodeSize = nodeFields.length;
  const edgeSize = edgeFields.length;
  const count = heap.nodes.length / nodeSize;
  const at = (name: string): number => nodeFields.indexOf(name);
  const [edgeCountAt, idAt, sizeAt, typeAt, nameAt] = [at('edge_count'), at('id'), at('self_size'), at('type'), at('name')];
  const firstEdge = new Uint32Array(count + 1);
  const ids = new Uint32Array(count);
  const selfSize = new Float64Array(count);
  for (let i = 0; i < count; i += 1) {
    firstEdge[i + 1] = firstEdge[i]! + heap.nodes[i * nodeSize + edgeCountAt]! * edgeSize;
    ids[i] = heap.nodes[i * nodeSize + idAt]!;
    selfSize[i] = heap.nodes[i * nodeSize + sizeAt]!;
  }
  return {
    heap,
    count,
    nodeSize,
    edgeSize,
    firstEdge,
    ids,
    selfSize,
    type: (node) => nodeTypes[0][heap.nodes[node * nodeSize + typeAt]!] ?? '?',
    name: (node) => heap.strings[heap.nodes[node * nodeSize + nameAt]!] ?? '?',
  };
}

/** Immediate dominators over strong edges from node 0 (Cooper, Harvey and Kennedy's iteration). */
export function dominators(g: Graph): { idom: Int32Array; parent: Int32Array; parentEdge: Int32Array } {
  const { heap } = g;
  const [edgeTypes] = heap.snapshot.meta.edge_types;
  const typeAt = heap.snapshot.meta.edge_fields.indexOf('type');
  const toAt = heap.snapshot.meta.edge_fields.indexOf('to_node');
  const strong = (edge: number): boolean => edgeTypes[heap.edges[edge + typeAt]!] !== 'weak';
  // Depth-first post-order from the root, and each node's predecessors.
  const order = new Int32Array(g.count).fill(-1);
  const post: number[] = [];
  const parent = new Int32Array(g.count).fill(-1);
  const parentEdge = new Int32Array(g.count).fill(-1);
  const stack: number[] = [0];
  const cursor = new Uint32Array(g.count);
  for (let i = 0; i < g.count; i += 1) cursor[i] = g.firstEdge[i]!;
  const seen = new Uint8Array(g.count);
  seen[0] = 1;
  while (stack.length > 0) {
    const node = stack.at(-1)!;
    if (cursor[node]! < g.firstEdge[node + 1]!) {
      const edge = cursor[node]!;
      cursor[node] = edge + g.edgeSize;
      if (!strong(edge)) continue;
      const to = heap.edges[edge + toAt]! / g.nodeSize;
      if (seen[to]) continue;
      seen[to] = 1;
      parent[to] = node;
      parentEdge[to] = edge;
      stack.push(to);
    } else {
      order[node] = post.length;
      post.push(node);
      stack.pop();
    }
  }
  const preds: number[][] = Array.from({ length: g.count }, () => []);
  for (let node = 0; node < g.count; node += 1) {
    if (!seen[node]) continue;
    for (let edge = g.firstEdge[node]!; edge < g.firstEdge[node + 1]!; edge += g.edgeSize) if (strong(edge)) preds[heap.edges[edge + toAt]! / g.nodeSize]!.push(node);
  }
  const idom = new Int32Array(g.count).fill(-1);
  idom[0] = 0;
  const intersect = (a: number, b: number): number => {
    while (a !== b) {
      while (order[a]! < order[b]!) a = idom[a]!;
      while (order[b]! < order[a]!) b = idom[b]!;
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = post.length - 2; i >= 0; i -= 1) {
      const node = post[i]!;
      let next = -1;
      for (const pred of preds[node]!) if (idom[pred] !== -1) next = next === -1 ? pred : intersect(pred, next);
      if (next !== -1 && idom[node] !== next) {
        idom[node] = next;
        changed = true;
      }
    }
  }
  return { idom, parent, parentEdge };
}

export interface HeapDiff {
  newBytes: number;
  holders: Array<{ holder: string; bytes: number; count: number; path: string }>;
  kinds: Array<{ kind: string; bytes: number; count: number }>;
}

export function heapDiff(before: HeapSnapshot, after: HeapSnapshot, limit = 15): HeapDiff {
  const old = graphOf(before);
  const known = new Set<number>(old.ids);
  const g = graphOf(after);
  const { idom, parent, parentEdge } = dominators(g);
  const isNew = (node: number): boolean => !known.has(g.ids[node]!);
  const label = (node: number): string => `${g.type(node)} ${g.name(node).slice(0, 50).replace(/\s+/g, ' ')}`;
  const kindOf = (node: number): string => {
    const type = g.type(node);
    return type === 'object' || type === 'native' || type === 'closure' ? `${type} ${g.name(node).slice(0, 50)}` : `(${type})`;
  };
  const [edgeTypes] = after.snapshot.meta.edge_types;
  const [edgeTypeAt, edgeNameAt] = ['type', 'name_or_index'].map((f) => after.snapshot.meta.edge_fields.indexOf(f)) as [number, number];
  const edgeLabel = (edge: number): string => {
    const type = edgeTypes[after.edges[edge + edgeTypeAt]!]!;
    const nameOrIndex = after.edges[edge + edgeNameAt]!;
    return type === 'element' || type === 'hidden' ? `[${nameOrIndex}]` : (after.strings[nameOrIndex] ?? '?').slice(0, 40);
  };
  const pathTo = (node: number): string => {
    const chain: string[] = [];
    for (let at = node; at > 0 && parentEdge[at]! >= 0 && chain.length < 14; at = parent[at]!) chain.unshift(`.${edgeLabel(parentEdge[at]!)}→${g.name(at).slice(0, 24)}`);
    return chain.join('');
  };
  const holders = new Map<number, { bytes: number; count: number }>();
  const kinds = new Map<string, { bytes: number; count: number }>();
  let newBytes = 0;
  for (let node = 0; node < g.count; node += 1) {
    if (idom[node] === -1 || !isNew(node)) continue;
    newBytes += g.selfSize[node]!;
    let holder = idom[node]!;
    while (holder !== 0 && isNew(holder)) holder = idom[holder]!;
    const h = holders.get(holder) ?? { bytes: 0, count: 0 };
    h.bytes += g.selfSize[node]!;
    h.count += 1;
    holders.set(holder, h);
    const kind = kindOf(node);
    const k = kinds.get(kind) ?? { bytes: 0, count: 0 };
    k.bytes += g.selfSize[node]!;
    k.count += 1;
    kinds.set(kind, k);
  }
  return {
    newBytes,
    holders: [...holders.entries()]
      .sort((a, b) => b[1].bytes - a[1].bytes)
      .slice(0, limit)
      .map(([node, h]) => ({ holder: label(node), bytes: h.bytes, count: h.count, path: pathTo(node) })),
    kinds: [...kinds.entries()]
      .sort((a, b) => b[1].bytes - a[1].bytes)
      .slice(0, limit)
      .map(([kind, k]) => ({ kind, ...k })),
  };
}

if (process.argv[1]?.endsWith('heap-diff.ts')) {
  const [beforeFile, afterFile, turns] = process.argv.slice(2);
  if (!beforeFile || !afterFile) throw new Error('usage: heap-diff.ts <before.heapsnapshot> <after.heapsnapshot> [turnsAdded]');
  const read = async (file: string): Promise<HeapSnapshot> => JSON.parse(await readFile(file, 'utf8')) as HeapSnapshot;
  const diff = heapDiff(await read(beforeFile), await read(afterFile));
  const per = Number(turns) > 0 ? Number(turns) : 1;
  const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB${per > 1 ? ` (${(bytes / 1024 / per).toFixed(2)} KB/turn)` : ''}`;
  console.log(`new live objects in after: ${kb(diff.newBytes)}`);
  console.log('held by (nearest dominator already in before):');
  for (const h of diff.holders) console.log(`  ${kb(h.bytes)} in ${h.count} objects, ${h.holder}\n      ${h.path}`);
  console.log('new objects by kind:');
  for (const k of diff.kinds) console.log(`  ${kb(k.bytes)} in ${k.count} × ${k.kind}`);
}
