/**
 * What the heap gained between two moments of the soak: the live objects of each heap snapshot
 * summed by kind and constructor, the kinds whose bytes grew most listed first (net: a
 * conversation opened again is new objects but no growth), each with the shortest chain of
 * references from a GC root to one of its objects the earlier snapshot did not have (V8 keeps an
 * object's snapshot id for its life). The soak runs it when CLARITY_SOAK_HEAP_DIFF=1:
 * the first snapshot after warm-up, the second at the end.
 */
import type { HeapSnapshot } from './detached-retainers';

interface Graph {
  heap: HeapSnapshot;
  nodeSize: number;
  edgeSize: number;
  count: number;
  firstEdge: Uint32Array;
  field(node: number, name: string): number;
}

function graphOf(heap: HeapSnapshot): Graph {
  const { node_fields: nodeFields, edge_fields: edgeFields } = heap.snapshot.meta;
  const nodeSize = nodeFields.length;
  const edgeSize = edgeFields.length;
  const count = heap.nodes.length / nodeSize;
  const edgeCountAt = nodeFields.indexOf('edge_count');
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0; i < count; i += 1) firstEdge[i + 1] = firstEdge[i]! + heap.nodes[i * nodeSize + edgeCountAt]! * edgeSize;
  const at = new Map(nodeFields.map((name, i) => [name, i]));
  return { heap, nodeSize, edgeSize, count, firstEdge, field: (node, name) => heap.nodes[node * nodeSize + at.get(name)!]! };
}

export interface HeapGrowthGroup {
  kind: string;
  /** Net change of the kind's live objects and bytes between the two snapshots. */
  count: number;
  bytes: number;
  /** The shortest chain from a GC root to one object of the group, read from the root down. */
  heldBy: string;
}

/** The kinds whose live bytes grew most from `before` to `after`, the largest `limit`. */
export function heapGrowth(before: HeapSnapshot, after: HeapSnapshot, limit = 12): HeapGrowthGroup[] {
  const old = graphOf(before);
  const known = new Set<number>();
  const groups = new Map<string, { count: number; bytes: number; example: number }>();
  const kindIn = (heap: HeapSnapshot, graph: Graph, node: number): string => {
    const type = heap.snapshot.meta.node_types[0][graph.field(node, 'type')] ?? '?';
    // Strings and code are grouped by type alone; objects by their constructor's name.
    return type === 'object' || type === 'native' || type === 'closure' ? `${type} ${(heap.strings[graph.field(node, 'name')] ?? '?').slice(0, 60)}` : `(${type})`;
  };
  for (let node = 0; node < old.count; node += 1) {
    known.add(old.field(node, 'id'));
    const kind = kindIn(before, old, node);
    const group = groups.get(kind) ?? { count: 0, bytes: 0, example: -1 };
    group.count -= 1;
    group.bytes -= old.field(node, 'self_size');
    groups.set(kind, group);
  }
  const g = graphOf(after);
  const [edgeTypes] = after.snapshot.meta.edge_types;
  const edgeTypeAt = after.snapshot.meta.edge_fields.indexOf('type');
  const edgeNameAt = after.snapshot.meta.edge_fields.indexOf('name_or_index');
  const edgeToAt = after.snapshot.meta.edge_fields.indexOf('to_node');
  const name = (node: number): string => after.strings[g.field(node, 'name')] ?? '?';
  for (let node = 0; node < g.count; node += 1) {
    const kind = kindIn(after, g, node);
    const group = groups.get(kind) ?? { count: 0, bytes: 0, example: -1 };
    group.count += 1;
    group.bytes += g.field(node, 'self_size');
    if (group.example === -1 && !known.has(g.field(node, 'id'))) group.example = node;
    groups.set(kind, group);
  }

  // Breadth first from the root over strong edges: each node's parent on a shortest path.
  const parentEdge = new Int32Array(g.count).fill(-1);
  const parent = new Int32Array(g.count).fill(-1);
  const queue = new Uint32Array(g.count);
  let head = 0;
  let tail = 0;
  queue[tail++] = 0;
  parent[0] = 0;
  while (head < tail) {
    const node = queue[head++]!;
    for (let edge = g.firstEdge[node]!; edge < g.firstEdge[node + 1]!; edge += g.edgeSize) {
      if (edgeTypes[after.edges[edge + edgeTypeAt]!] === 'weak') continue;
      const to = after.edges[edge + edgeToAt]! / g.nodeSize;
      if (parent[to] !== -1) continue;
      parent[to] = node;
      parentEdge[to] = edge;
      queue[tail++] = to;
    }
  }
  const edgeLabel = (edge: number): string => {
    const type = edgeTypes[after.edges[edge + edgeTypeAt]!]!;
    const nameOrIndex = after.edges[edge + edgeNameAt]!;
    return type === 'element' || type === 'hidden' ? `[${nameOrIndex}]` : (after.strings[nameOrIndex] ?? '?').slice(0, 40);
  };
  const chainTo = (node: number): string => {
    if (node < 0) return '(no object of this kind is new)';
    const chain: string[] = [];
    for (let at = node; at > 0 && parentEdge[at]! >= 0 && chain.length < 16; at = parent[at]!) chain.unshift(`--${edgeLabel(parentEdge[at]!)}--> ${name(at).slice(0, 50)}`);
    return chain.join(' ') || '(unreachable: garbage the GC had not yet taken)';
  };
  return [...groups.entries()]
    .filter(([, group]) => group.bytes > 0)
    .sort((a, b) => b[1].bytes - a[1].bytes)
    .slice(0, limit)
    .map(([kind, group]) => ({ kind, count: group.count, bytes: group.bytes, heldBy: chainTo(group.example) }));
}
