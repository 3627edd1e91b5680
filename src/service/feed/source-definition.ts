/** A source's definition from what a person, a sources file or an accepted proposal gave: checked, with its id. */
import { SourceInputError } from './source-proposals';
import { newSourceId, SourceDefinition, urlProblem, type FeedSourceRecord, type SourceDefinitionInput } from './source-registry';

/** The schema, then the URL for its kind; a clear SourceInputError naming the first problem. */
export function sourceDefinitionOf(input: SourceDefinitionInput, nowMs: number): FeedSourceRecord {
  const parsed = SourceDefinition.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SourceInputError(`Invalid field \`${issue?.path.join('.') || 'body'}\`: ${issue?.message ?? 'invalid value'}.`);
  }
  const problem = urlProblem(parsed.data.kind, parsed.data.url);
  if (problem) throw new SourceInputError(problem);
  return {
    id: parsed.data.id ?? newSourceId(parsed.data.name),
    name: parsed.data.name,
    kind: parsed.data.kind,
    url: parsed.data.url,
    cadence_s: parsed.data.cadence_s,
    role: parsed.data.role,
    ...(parsed.data.item_selector ? { item_selector: parsed.data.item_selector } : {}),
    paused: parsed.data.paused,
    created_at: new Date(nowMs).toISOString(),
  };
}
