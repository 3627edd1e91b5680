/**
 * Source proposals: an analyst proposes a URL, an administrator accepts it (it becomes a source,
 * fetched at once) or rejects it with a reason. A proposal is stored, never fetched until accepted.
 */
import { randomBytes } from 'node:crypto';
import { FeedFailure } from './feed-failure';
import type { FeedRepository, ProposalRecord } from './feed-repository';
import { FEED_KINDS, type FeedKind, type FeedSourceRecord, type SourceDefinitionInput } from './source-registry';

/** What accepting needs of the feed service: a try-read, a definition checked, a source added. */
export interface ProposalDeskHost {
  repository: FeedRepository;
  now: () => number;
  preview(input: SourceDefinitionInput): Promise<unknown>;
  definitionOf(input: SourceDefinitionInput): FeedSourceRecord;
  add(definition: FeedSourceRecord): Promise<FeedSourceRecord>;
}

export class SourceInputError extends Error {}

export class ProposalDesk {
  constructor(private readonly host: ProposalDeskHost) {}

  async propose(input: { url: string; name?: string; kind?: string; rationale?: string }, proposedBy: string): Promise<ProposalRecord> {
    const proposal: ProposalRecord = {
      id: `prp_${randomBytes(8).toString('hex')}`,
      url: input.url,
      name: input.name ?? null,
      kind: input.kind ?? null,
      note: input.rationale ?? null,
      proposed_by: proposedBy,
      proposed_at: new Date(this.host.now()).toISOString(),
      status: 'pending',
      decided_at: null,
      reason: null,
      source_id: null,
    };
    await this.host.repository.insertProposal(proposal);
    return proposal;
  }

  /** Newest first. */
  async list(): Promise<ProposalRecord[]> {
    return (await this.host.repository.listProposals()).sort((a, b) => b.proposed_at.localeCompare(a.proposed_at));
  }

  /**
   * Accepting makes the proposal a source, fetched at once. Its kind is the one asked for, else
   * the proposer's when it is one of ours, else found by reading the URL (a feed, or a listing page).
   */
  async accept(id: string, overrides: { kind?: FeedKind; name?: string; cadence_s?: number } = {}): Promise<{ proposal: ProposalRecord; source: FeedSourceRecord }> {
    const proposal = await this.pending(id);
    let kind = overrides.kind ?? (FEED_KINDS as readonly string[]).find((known) => known === proposal.kind) as FeedKind | undefined;
    const name = overrides.name ?? proposal.name ?? new URL(proposal.url).hostname;
    if (!kind) {
      kind = 'rss';
      try {
        await this.host.preview({ name, kind: 'rss', url: proposal.url });
      } catch (error) {
        if (error instanceof FeedFailure && error.kind === 'not_a_feed') kind = 'html';
      }
    }
    const definition = this.host.definitionOf({ name, kind, url: proposal.url, ...(overrides.cadence_s ? { cadence_s: overrides.cadence_s } : {}) });
    // Decided first: of two administrators accepting at once (two processes), one makes the source.
    const decided = await this.host.repository.decideProposal({ ...proposal, status: 'accepted', decided_at: new Date(this.host.now()).toISOString(), source_id: definition.id });
    if (!decided) throw new SourceInputError(`Proposal ${id} is already ${(await this.host.repository.getProposal(id))?.status ?? 'decided'}.`);
    const source = await this.host.add(definition);
    return { proposal: decided, source };
  }

  async reject(id: string, reason: string): Promise<ProposalRecord> {
    const proposal = await this.pending(id);
    const decided = await this.host.repository.decideProposal({ ...proposal, status: 'rejected', decided_at: new Date(this.host.now()).toISOString(), reason });
    if (!decided) throw new SourceInputError(`Proposal ${id} is already ${(await this.host.repository.getProposal(id))?.status ?? 'decided'}.`);
    return decided;
  }

  private async pending(id: string): Promise<ProposalRecord> {
    const proposal = await this.host.repository.getProposal(id);
    if (!proposal) throw new SourceInputError(`No proposal ${id}.`);
    if (proposal.status !== 'pending') throw new SourceInputError(`Proposal ${id} is already ${proposal.status}.`);
    return proposal;
  }
}
