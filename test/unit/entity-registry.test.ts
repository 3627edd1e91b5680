import { describe, expect, it } from 'vitest';
import { findEntities } from '../../src/service/feed/gazetteer';
import { resolveEntities } from '../../src/service/retrieval/entity-resolver';
import { EntityRegistry } from '../../src/service/world/entity-registry';

/** Every word is an ordinary word except the ones listed (what the search index's vocabulary would say). */
const knownExcept = (...names: string[]) => (word: string) => !names.map((name) => name.toLowerCase()).includes(word.toLowerCase());

describe('entity registry', () => {
  it('is seeded from the built-in gazetteer: retailers with their aliases, organisations', () => {
    const registry = new EntityRegistry();
    expect(registry.find('d-mart')).toMatchObject({ name: 'DMart', kind: 'retailer', origin: 'gazetteer', segment: 'grocery' });
    expect(registry.find('Karnataka Labour Department')).toMatchObject({ kind: 'organisation', origin: 'gazetteer' });
    expect(registry.learned()).toEqual([]);
    expect(registry.version).toBe(0);
  });

  it('grows: a learned retailer resolves in questions by name, alias and typo, and tags items', () => {
    const registry = new EntityRegistry();
    const question = 'What did Vishal Mega Mart announce?';
    expect(resolveEntities(question, knownExcept('Vishal', 'Mega', 'Mart'), registry).unknown).toEqual(['Vishal Mega Mart']);
    const changed = registry.upsert([{ kind: 'retailer', name: 'Vishal Mega Mart', aliases: ['VMM'], segment: 'fashion', cities: ['Lucknow'] }]);
    expect(changed.map((entity) => entity.name)).toEqual(['Vishal Mega Mart']);
    expect(registry.version).toBe(1);
    const resolved = resolveEntities(question, knownExcept('Vishal', 'Mega', 'Mart'), registry);
    expect(resolved.retailers).toEqual(['Vishal Mega Mart']);
    expect(resolved.unknown).toEqual([]);
    expect(resolveEntities('Any news on VMM?', knownExcept('VMM'), registry).retailers).toEqual(['Vishal Mega Mart']);
    expect(resolveEntities('How is Vishalmegamrt doing?', knownExcept('Vishalmegamrt'), registry).retailers).toEqual(['Vishal Mega Mart']);
    expect(findEntities('Vishal Mega Mart opens 12 stores in Lucknow', registry)).toMatchObject({ retailers: ['Vishal Mega Mart'], cities: ['Lucknow'], segments: ['fashion'] });
    // Learned names count in text only when written as names.
    expect(findEntities('the vmm of it', registry).retailers).toEqual([]);
  });

  it('lets the gazetteer win: a built-in name or alias is never taken by a learned entity', () => {
    const registry = new EntityRegistry();
    expect(registry.upsert([{ kind: 'retailer', name: 'D-Mart' }, { kind: 'organisation', name: 'Bangalore' }, { kind: 'brand', name: 'Trent' }])).toEqual([]);
    expect(registry.version).toBe(0);
    const [entity] = registry.upsert([{ kind: 'brand', name: 'Nilgiri Threads', aliases: ['NTL', 'Zudio', 'Mumbai'] }]);
    expect(entity?.aliases).toEqual(['NTL']);
    expect(registry.find('Zudio')?.origin).toBe('gazetteer');
    expect(resolveEntities('Zudio stores', undefined, registry).retailers).toEqual(['Zudio']);
  });

  it('merges a second learning of the same name and counts only real changes', () => {
    const registry = new EntityRegistry();
    registry.upsert([{ kind: 'retailer', name: 'Nilgiri Threads', aliases: ['NTL'], cities: ['Coimbatore'] }]);
    expect(registry.upsert([{ kind: 'retailer', name: 'nilgiri threads', aliases: ['NTL'], cities: ['Coimbatore'] }])).toEqual([]);
    expect(registry.version).toBe(1);
    registry.upsert([{ kind: 'retailer', name: 'Nilgiri Threads', aliases: ['Nilgiri Threads Ltd'], cities: ['Kochi'], segment: 'fashion' }]);
    expect(registry.version).toBe(2);
    expect(registry.find('NTL')).toMatchObject({ name: 'Nilgiri Threads', aliases: ['NTL', 'Nilgiri Threads Ltd'], cities: ['Coimbatore', 'Kochi'], segment: 'fashion' });
    expect(registry.learned()).toHaveLength(1);
  });

  it('rebuilds a derived lookup only after a change', () => {
    const registry = new EntityRegistry();
    let builds = 0;
    const count = () => registry.derived('test', () => (builds += 1));
    count();
    count();
    expect(builds).toBe(1);
    registry.upsert([{ kind: 'person', name: 'Asha Raman' }]);
    count();
    expect(builds).toBe(2);
    // A learned person is a name, never an unknown entity.
    expect(resolveEntities('What did Asha Raman say?', knownExcept('Asha', 'Raman'), registry).unknown).toEqual([]);
  });

  it('tags items with learned names written any way the built-in names may be (hyphens, "&", punctuation after), the longer name winning', () => {
    const registry = new EntityRegistry();
    registry.upsert([
      { kind: 'retailer', name: 'Nilgiri Threads', aliases: ['NTL'] },
      { kind: 'brand', name: 'Kora & Co', segment: 'fashion' },
      { kind: 'retailer', name: 'Zudio Home Stores' },
      { kind: 'person', name: 'Asha Raman' },
    ]);
    expect(findEntities('Nilgiri-Threads opened in Kochi.', registry).retailers).toEqual(['Nilgiri Threads']);
    expect(findEntities('Shares of NTL, which…', registry).retailers).toEqual(['Nilgiri Threads']);
    expect(findEntities('Kora & Co. adds a store', registry)).toMatchObject({ retailers: ['Kora & Co'], segments: ['fashion'] });
    // "&" is part of the name: another word in its place is another name.
    expect(findEntities('Kora and Co adds a store', registry).retailers).toEqual([]);
    // A learned name holding a built-in one is the name written; the built-in name alone is still found.
    expect(findEntities('Zudio Home Stores opens in Pune; Zudio too', registry).retailers.sort()).toEqual(['Zudio', 'Zudio Home Stores']);
    expect(findEntities('Zudio Home Stores opens in Pune', registry).retailers).toEqual(['Zudio Home Stores']);
    // People are names in questions, not retailers on items; a name inside a word is not the name.
    expect(findEntities('Asha Raman said so', registry).retailers).toEqual([]);
    expect(findEntities('XNilgiri Threads', registry).retailers).toEqual([]);
  });

  it("learns a thousand names, each tagging items at once (kept in the registry's run lookup as learned)", () => {
    const registry = new EntityRegistry();
    for (let i = 0; i < 1_000; i += 1) {
      registry.upsert([{ kind: 'retailer', name: `Benchmart ${i} Stores` }]);
      expect(findEntities(`Benchmart ${i} Stores opens in Pune`, registry).retailers).toEqual([`Benchmart ${i} Stores`]);
    }
    expect(registry.learnedRuns().byKey.size).toBe(1_000);
  });
});
